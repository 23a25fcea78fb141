import type { Publisher } from '../broker/publisher';
import { groupWakeUps } from '../broker/wake-up';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import type { Inserted } from '../store/insert-messages';
import { clearOutbox } from '../store/wake-up-outbox';
import { loggableError } from '../loggable-error';

export interface Dispatchable {
  readonly id: string;
  readonly dueAt: Date;
}

type DispatchDeps = { pool: Pool; publisher: Publisher; logger: Logger };

/**
 * Publishes wake-ups for rows already committed (messages due together share one). Once every one is
 * confirmed, deletes the outbox entries `outboxIds` that owed them. Never throws: an entry whose wake-ups
 * are not all confirmed stays, and the relay publishes it later, so an accepted schedule does not depend
 * on RabbitMQ being up at that instant.
 */
export async function dispatch(
  deps: DispatchDeps,
  rows: readonly Dispatchable[],
  reason: 'schedule' | 'relay' | 'pump' = 'schedule',
  outboxIds: readonly number[] = [],
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
    if (failed === 0) await clearOutbox(deps.pool, outboxIds);
  } catch (err) {
    // The wake-ups are out; an entry left behind only gets the relay to publish duplicates, which the
    // worker's claim makes harmless.
    deps.logger.warn({ err: loggableError(err) }, 'could not record dispatched wake-ups');
  }
  return { queued: confirmed.length, failed };
}

/**
 * Publishes the wake-ups of freshly inserted rows due within the publishing horizon and clears their
 * outbox entry (see dispatch); the horizon pump publishes the others' later.
 */
export function dispatchInserted(deps: DispatchDeps, inserted: Inserted): Promise<unknown> {
  if (inserted.toPublish.length === 0 || inserted.outboxId === null) return Promise.resolve();
  return dispatch(deps, inserted.toPublish, 'schedule', [inserted.outboxId]);
}
