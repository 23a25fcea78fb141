import type { Publisher } from '../broker/publisher';
import type { Pool } from '../db/pool';
import { ConflictError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { dispatch } from './dispatch';
import { insertMessages, type Message, type NewMessage } from './message-store';

export type ScheduleResult =
  | { readonly ok: true; readonly message: Message; readonly created: boolean }
  | { readonly ok: false; readonly error: ConflictError };

export interface ScheduleDeps {
  readonly pool: Pool;
  readonly publisher: Publisher;
  readonly logger: Logger;
  /** Keeps background work visible to shutdown. */
  readonly track: (work: Promise<unknown>) => void;
  readonly metrics: Metrics;
}

/**
 * Accepts validated messages: one INSERT writes them all as `pending` (the outbox) and the answer goes
 * back once that commits; wake-ups are published in the background and the rows marked `queued` when
 * confirmed (`awaitDispatch`: before returning, so that a long stream of batches is paced by the broker
 * instead of piling up publishes in memory; a failed publish still only leaves rows for the relay). A repeated idempotency key returns the existing row, or a conflict when the request differs.
 */
export async function scheduleMessages(
  deps: ScheduleDeps,
  messages: readonly NewMessage[],
): Promise<ScheduleResult[]> {
  const { created, existing } = await insertMessages(deps.pool, messages);
  const createdById = new Map(created.map((m) => [m.id, m]));
  const existingByKey = new Map(existing.map((m) => [`${m.appId}\u0000${m.idempotencyKey}`, m]));
  for (const m of created) deps.metrics.scheduled.inc({ channel: m.channel });
  if (created.length > 0) deps.track(dispatch(deps, created));

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
