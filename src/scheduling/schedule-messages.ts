import type { Publisher } from '../broker/publisher';
import { type Pool, type PoolClient, withTransaction } from '../db/pool';
import { ConflictError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { dispatch } from './dispatch';
import { insertMessages, type Message, type NewMessage } from '../store/message-store';

export type ScheduleResult =
  | { readonly ok: true; readonly message: Message; readonly created: boolean }
  | { readonly ok: false; readonly error: ConflictError };

export interface ScheduleDeps {
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * Keeps background work visible to shutdown: the wake-ups are published in the background and the
   * answer does not wait for them. Without it, `scheduleMessages` waits for the publishes (a caller with no
   * answer to give, or one that paces a stream by the broker).
   */
  readonly track?: (work: Promise<unknown>) => void;
}

/**
 * What to schedule: the rows, or a function that writes whatever must commit with them (a cancellation
 * it replaces, an enrollment, a processed push) in the given transaction and returns the rows.
 */
export type Schedulable = readonly NewMessage[] | ((tx: PoolClient) => Promise<readonly NewMessage[]>);

/**
 * The one way to schedule, for every producer (the API, the NDJSON batch, a reschedule, a sequence
 * enrollment, a test send): the rows are written as `pending` (the outbox) — with whatever the producer
 * writes in the same transaction — and counted once; the answer goes back once that commits; then wake-ups
 * are published and the rows marked `queued` when confirmed (a failed publish only leaves rows for the
 * relay). A repeated idempotency key returns the existing row, or a conflict when the request differs; in
 * a producer's transaction a conflict rolls the whole transaction back and is thrown.
 */
export async function scheduleMessages(
  deps: ScheduleDeps,
  schedulable: Schedulable,
): Promise<ScheduleResult[]> {
  const { results, created } =
    typeof schedulable === 'function'
      ? await withTransaction(deps.pool, async (tx) => {
          const written = await insertAndMatch(tx, await schedulable(tx));
          const conflict = written.results.find((r) => !r.ok);
          if (conflict && !conflict.ok) throw conflict.error;
          return written;
        })
      : await insertAndMatch(deps.pool, schedulable);
  for (const m of created) deps.metrics.scheduled.inc({ channel: m.channel });
  if (created.length > 0) {
    const publishing = dispatch(deps, created);
    if (deps.track) deps.track(publishing);
    else await publishing;
  }
  return results;
}

/** Inserts the rows and matches each input to its row: created, the same request repeated, or a conflict. */
async function insertAndMatch(
  db: Pool | PoolClient,
  messages: readonly NewMessage[],
): Promise<{ results: ScheduleResult[]; created: Message[] }> {
  const { created, existing } = await insertMessages(db, messages);
  const createdById = new Map(created.map((m) => [m.id, m]));
  const existingByKey = new Map(existing.map((m) => [`${m.appId}\u0000${m.idempotencyKey}`, m]));
  const results = messages.map((input): ScheduleResult => {
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
  return { results, created };
}
