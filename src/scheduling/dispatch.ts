import type { Publisher } from '../broker/publisher';
import { groupWakeUps } from '../broker/wake-up';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { markQueued } from '../store/message-store';

export interface Dispatchable {
  readonly id: string;
  readonly dueAt: Date;
}

/**
 * Publishes wake-ups for rows already committed as `pending` (messages due together share one), then
 * marks the confirmed ones `queued` in one statement. Never throws: whatever is not confirmed stays
 * `pending` and the relay publishes it later, so an accepted schedule does not depend on RabbitMQ being
 * up at that instant.
 */
export async function dispatch(
  deps: { pool: Pool; publisher: Publisher; logger: Logger },
  rows: readonly Dispatchable[],
  reason: 'schedule' | 'relay' = 'schedule',
): Promise<{ queued: number; failed: number }> {
  const wakeUps = groupWakeUps(rows.map((r) => ({ id: r.id, dueAt: r.dueAt.getTime() })));
  const results = await Promise.allSettled(wakeUps.map((w) => deps.publisher.publishWakeUp(w, reason)));
  const confirmed = wakeUps.filter((_, i) => results[i].status === 'fulfilled').flatMap((w) => w.ids);
  const failed = rows.length - confirmed.length;
  if (failed > 0) {
    const first = results.find((r) => r.status === 'rejected');
    deps.logger.warn(
      { failed, err: (first?.reason as Error | undefined)?.message },
      'wake-ups not confirmed; the relay will republish them',
    );
  }
  try {
    await markQueued(deps.pool, confirmed);
  } catch (err) {
    // The wake-ups are out; rows left `pending` only get a duplicate wake-up from the relay, which the
    // worker's claim makes harmless.
    deps.logger.warn({ err: (err as Error).message }, 'could not mark dispatched rows queued');
  }
  return { queued: confirmed.length, failed };
}
