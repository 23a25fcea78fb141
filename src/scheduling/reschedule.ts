import { type PoolClient, withTransaction } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { cancelByIdIn, cancelTargetIn } from './cancel';
import type { Message, NewMessage } from '../store/message-store';
import { insertScheduled, publishScheduled, type ScheduleDeps } from './schedule-messages';

/**
 * Moves one message: cancels it and schedules its replacement in one transaction, so a reader never sees
 * both or neither. Only an open message can be moved (409 once it is being sent or finished).
 */
export async function rescheduleMessage(
  deps: ScheduleDeps,
  id: string,
  replacement: NewMessage,
  actor: string,
): Promise<{ message: Message; replaces: string }> {
  const message = await replace(deps, replacement, async (tx) => {
    const old = (await cancelByIdIn(tx, [{ id, reason: 'rescheduled', actor }])).get(id);
    if (!old) throw new NotFoundError(`message ${id}`);
    if (!old.cancelled) {
      throw new ConflictError(
        'message_not_reschedulable',
        `message ${id} is ${old.status} and can no longer be moved`,
      );
    }
  });
  return { message, replaces: id };
}

/**
 * Moves everything scheduled under a cancel key (a meeting's reminders): one ledger row cancels what
 * exists now, and the replacement — scheduled in the same transaction, after the ledger row — is not
 * covered by it.
 */
export async function rescheduleByKey(
  deps: ScheduleDeps,
  replacement: NewMessage & { cancelKey: string },
  actor: string,
): Promise<{ message: Message; cancelled: number }> {
  let cancelled = 0;
  const message = await replace(deps, replacement, async (tx) => {
    ({ matched: cancelled } = await cancelTargetIn(tx, {
      appId: replacement.appId,
      target: { cancelKey: replacement.cancelKey },
      reason: 'rescheduled',
      actor,
    }));
  });
  return { message, cancelled };
}

/** In one transaction: `cancel` what is replaced, then schedule the replacement; publishes after commit. */
async function replace(
  deps: ScheduleDeps,
  replacement: NewMessage,
  cancel: (tx: PoolClient) => Promise<void>,
): Promise<Message> {
  const scheduled = await withTransaction(deps.pool, async (tx) => {
    await cancel(tx);
    return insertScheduled(deps, tx, [replacement]);
  });
  await publishScheduled(deps, scheduled);
  return scheduled.results[0].message;
}
