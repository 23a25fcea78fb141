import { withTransaction } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { dispatch } from './dispatch';
import { cancelTargetIn } from './cancel';
import { cancelOpenMessage, insertMessages, type Message, type NewMessage } from './message-store';
import type { ScheduleDeps } from './schedule-messages';

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
  const message = await withTransaction(deps.pool, async (client) => {
    const { cancelled, message: old } = await cancelOpenMessage(client, { id, reason: 'rescheduled', actor });
    if (!old) throw new NotFoundError(`message ${id}`);
    if (!cancelled) {
      throw new ConflictError(
        'message_not_reschedulable',
        `message ${id} is ${old.status} and can no longer be moved`,
      );
    }
    return (await insertMessages(client, [replacement])).created[0];
  });
  deps.track(dispatch(deps, [message]));
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
  const { message, cancelled } = await withTransaction(deps.pool, async (client) => {
    const { matched } = await cancelTargetIn(client, {
      appId: replacement.appId,
      target: { cancelKey: replacement.cancelKey },
      reason: 'rescheduled',
      actor,
    });
    const created = (await insertMessages(client, [replacement])).created[0];
    return { message: created, cancelled: matched };
  });
  deps.track(dispatch(deps, [message]));
  return { message, cancelled };
}
