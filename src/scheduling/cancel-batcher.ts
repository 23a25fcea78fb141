import { createCoalescer } from '../coalescer';
import type { Pool } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import type { CancelById } from '../store/cancel-by-ids';
import { findMessages, type Message } from '../store/message-store';
import { MESSAGE_STATUS } from '../store/message-status';
import { cancelById, type CancelledById } from './cancel';

/** Most ids one joined cancellation carries (the rest wait for the next). */
const MAX_JOINED_IDS = 1000;

/** What one id's answer is, from the joined cancellation's result and the row as it is now. */
function answer(id: string, result: CancelledById | undefined, message: Message | undefined): Message {
  if (!result || !message) throw new NotFoundError(`message ${id}`);
  if (result.status === MESSAGE_STATUS.cancelled) return message;
  throw new ConflictError(
    'message_not_cancellable',
    `message ${id} is ${result.status} and can no longer be cancelled`,
    { status: result.status },
  );
}

/**
 * Cancels messages one by id, as `DELETE /v1/messages/:id` asks — an open message becomes `cancelled` at
 * once and the ledger records who and why; one already cancelled answers as it is; one being sent or
 * finished is a conflict — while joining the cancellations that arrive together: one runs at a time, and
 * those that arrive meanwhile go together in the next `cancelById` (each with its own reason), then one
 * read of their rows. Under load a DELETE costs a share of one commit instead of a commit of its own.
 */
export function createCancelBatcher(pool: Pool): (input: CancelById) => Promise<Message> {
  const coalescer = createCoalescer<CancelById, readonly [CancelledById | undefined, Message | undefined]>({
    maxBatch: MAX_JOINED_IDS,
    maxConcurrent: 1,
    run: async (batch) => {
      const answers = await cancelById(pool, [...new Map(batch.map((c) => [c.id, c])).values()]);
      const rows = await findMessages(
        pool,
        batch.map((c) => c.id),
      );
      return batch.map(({ id }) => [answers.get(id), rows.get(id)] as const);
    },
    // A joined statement that fails fails for every id in it (the database, not one id, refused it).
    splitOnError: () => false,
  });
  return async (input) => answer(input.id, ...(await coalescer.submit(input)));
}
