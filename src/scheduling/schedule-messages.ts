import type { Publisher } from '../broker/publisher';
import { type Pool, type PoolClient, withTransaction } from '../db/pool';
import { ConflictError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { dispatchInserted } from './dispatch';
import type { ScheduleWriter, Written } from './schedule-writer';
import { insertMessages, type Inserted } from '../store/insert-messages';
import type { Message, NewMessage } from '../store/message-store';

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
  /** Group commit for concurrent callers (see schedule-writer); without it each call inserts alone. */
  readonly writer?: ScheduleWriter;
}

/**
 * What to schedule: the rows, or a function that writes whatever must commit with them (a cancellation
 * it replaces, an enrollment, a processed push) in the given transaction and returns the rows.
 */
export type Schedulable = readonly NewMessage[] | ((tx: PoolClient) => Promise<readonly NewMessage[]>);

/**
 * The one way to schedule, for every producer (the API, the NDJSON batch, a reschedule, a sequence
 * enrollment, a test send): the rows are written `queued` with an outbox entry naming them, in one
 * statement (and in the producer's transaction, with whatever it writes), and counted once; the answer
 * goes back once that commits; then wake-ups are published and, once all are confirmed, the outbox entry
 * deleted (a failed publish only leaves the entry for the relay). A repeated idempotency key returns the
 * existing row, or a conflict when the request differs; in a producer's transaction a conflict rolls the
 * whole transaction back and is thrown.
 */
export async function scheduleMessages(
  deps: ScheduleDeps,
  schedulable: Schedulable,
): Promise<ScheduleResult[]> {
  const { messages, inserted, published } =
    typeof schedulable === 'function'
      ? await writeInTransaction(deps, schedulable)
      : { messages: schedulable, ...(await write(deps, schedulable)) };
  const results = matchResults(messages, inserted);
  for (const r of results) if (r.ok && r.created) deps.metrics.scheduled.inc({ channel: r.message.channel });
  if (deps.track) deps.track(published);
  else await published;
  return results;
}

function write(deps: ScheduleDeps, messages: readonly NewMessage[]): Promise<Written> {
  if (deps.writer) return deps.writer.write(messages);
  return insertMessages(deps.pool, messages).then((inserted) => ({
    inserted,
    published: dispatchInserted(deps, inserted),
  }));
}

async function writeInTransaction(
  deps: ScheduleDeps,
  produce: (tx: PoolClient) => Promise<readonly NewMessage[]>,
): Promise<Written & { messages: readonly NewMessage[] }> {
  const { messages, inserted } = await withTransaction(deps.pool, async (tx) => {
    const rows = await produce(tx);
    const written = await insertMessages(tx, rows);
    const conflict = matchResults(rows, written).find((r) => !r.ok);
    if (conflict && !conflict.ok) throw conflict.error;
    return { messages: rows, inserted: written };
  });
  return { messages, inserted, published: dispatchInserted(deps, inserted) };
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
