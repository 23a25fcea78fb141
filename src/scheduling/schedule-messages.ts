import type { Publisher } from '../broker/publisher';
import type { Pool, PoolClient } from '../db/pool';
import { ConflictError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { dispatchInserted } from './dispatch';
import type { ScheduleWriter } from './schedule-writer';
import { insertMessages, type Inserted } from '../store/insert-messages';
import type { Message, NewMessage } from '../store/message-store';

export type ScheduleResult =
  | { readonly ok: true; readonly message: Message; readonly created: boolean }
  | { readonly ok: false; readonly error: ConflictError };

/** A row scheduled in a producer's transaction (a conflict there is thrown, so every result is a row). */
export type Accepted = Extract<ScheduleResult, { ok: true }>;

/** What `insertScheduled` wrote in a producer's transaction: its answer, and what to publish after commit. */
export interface Scheduled {
  readonly results: readonly Accepted[];
  readonly inserted: Inserted;
}

export interface ScheduleDeps {
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * Keeps background work visible to shutdown: the wake-ups are published in the background and the
   * answer does not wait for them. Without it, scheduling waits for the publishes (a caller with no answer
   * to give, or one that paces a stream by the broker).
   */
  readonly track?: (work: Promise<unknown>) => void;
  /** Group commit for concurrent callers (see schedule-writer); without it each call inserts alone. */
  readonly writer?: ScheduleWriter;
}

/*
 * The one way to schedule, for every producer (the API, the NDJSON batch, a reschedule, a sequence
 * enrollment, a push, a posted event, a test send): the rows are written `queued` with an outbox entry
 * naming them, in one statement, and counted once; the answer goes back once that commits; then wake-ups
 * are published and, once all are confirmed, the outbox entry deleted (a failed publish only leaves the
 * entry for the relay). A repeated idempotency key returns the existing row, or a conflict when the
 * request differs. Two ways in: `scheduleMessages` for a producer with nothing else to commit, and, for
 * one that commits the rows with its own writes, `insertScheduled` in its transaction and
 * `publishScheduled` after the commit.
 */

/** Schedules rows that commit on their own (through the group commit when the deps have a writer). */
export async function scheduleMessages(
  deps: ScheduleDeps,
  messages: readonly NewMessage[],
): Promise<ScheduleResult[]> {
  const { inserted, published } = deps.writer
    ? await deps.writer.write(messages)
    : await insertMessages(deps.pool, messages, deps.publisher.horizonMs).then((rows) => ({
        inserted: rows,
        published: dispatchInserted(deps, rows),
      }));
  const results = matchResults(messages, inserted);
  await settle(deps, results, published);
  return results;
}

/**
 * Writes the rows in the producer's transaction `tx`, with whatever it writes (a cancellation they
 * replace, an enrollment, a processed push). A conflict is thrown, which rolls the whole transaction
 * back. Once `tx` commits, give the result to `publishScheduled`.
 */
export async function insertScheduled(
  deps: Pick<ScheduleDeps, 'publisher'>,
  tx: PoolClient,
  messages: readonly NewMessage[],
): Promise<Scheduled> {
  const inserted = await insertMessages(tx, messages, deps.publisher.horizonMs);
  const results = matchResults(messages, inserted).map((r) => {
    if (!r.ok) throw r.error;
    return r;
  });
  return { results, inserted };
}

/** After the producer's transaction committed: counts the rows and publishes their wake-ups. */
export function publishScheduled(deps: ScheduleDeps, scheduled: Scheduled): Promise<void> {
  return settle(deps, scheduled.results, dispatchInserted(deps, scheduled.inserted));
}

async function settle(
  deps: ScheduleDeps,
  results: readonly ScheduleResult[],
  published: Promise<unknown>,
): Promise<void> {
  for (const r of results) if (r.ok && r.created) deps.metrics.scheduled.inc({ channel: r.message.channel });
  if (deps.track) deps.track(published);
  else await published;
}

/**
 * Matches each input to its row: created, the same request repeated, or a conflict. `inserted` may hold
 * other callers' rows too (a shared statement): each input finds its own by id, or by its key.
 */
function matchResults(messages: readonly NewMessage[], inserted: Inserted): ScheduleResult[] {
  const createdById = new Map(inserted.created.map((m) => [m.id, m]));
  const existingByKey = new Map(inserted.existing.map((m) => [`${m.appId}\u0000${m.idempotencyKey}`, m]));
  return messages.map((input): ScheduleResult => {
    const row = createdById.get(input.id);
    if (row) return { ok: true, message: row, created: true };
    const prior = existingByKey.get(`${input.appId}\u0000${input.idempotencyKey}`);
    if (prior && prior.requestHash === input.requestHash) return { ok: true, message: prior, created: false };
    return {
      ok: false,
      error: new ConflictError(
        'idempotency_key_reused',
        `idempotencyKey ${input.idempotencyKey} was already used for a different request`,
        prior ? { existingId: prior.id } : undefined,
      ),
    };
  });
}
