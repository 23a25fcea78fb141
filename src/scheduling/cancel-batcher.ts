import { createCoalescer } from '../coalescer';
import type { Pool } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { cancelUnheldOpenMessages } from '../store/cancel-by-ids';
import { cancelOpenMessage, findMessages, type Message } from '../store/message-store';
import { MESSAGE_STATUS, OPEN_STATUSES } from '../store/message-status';

const isOpen = (m: Message | undefined): boolean =>
  m !== undefined && (OPEN_STATUSES as readonly string[]).includes(m.status);

/** One cancellation by id as `DELETE /v1/messages/:id` asks for it. */
export interface CancelOne {
  readonly id: string;
  readonly reason: string;
  readonly actor: string;
}

/** Most ids one joined cancellation carries (the rest wait for the next). */
const MAX_JOINED_IDS = 1000;

/** One id's answer: its message, or the error its caller gets. */
type Answer = { readonly message: Message } | { readonly error: unknown };

/** What one id's answer is, from the joined cancellation's result: the message, or why not. */
function answer(id: string, cancelled: boolean, message: Message | undefined): Message {
  if (!message) throw new NotFoundError(`message ${id}`);
  if (cancelled || message.status === MESSAGE_STATUS.cancelled) return message;
  throw new ConflictError(
    'message_not_cancellable',
    `message ${message.id} is ${message.status} and can no longer be cancelled`,
    { status: message.status },
  );
}

/**
 * Cancels messages one by id — an open message becomes `cancelled` at once and the ledger records who and
 * why; one already cancelled answers as it is; one being sent or finished is a conflict — while joining
 * the cancellations that arrive together: one runs at a time, and those that arrive meanwhile go together
 * in the next (one statement, each with its own reason; then one read of the rows it did not cancel).
 * Under load a DELETE costs a share of one commit instead of a commit of its own; alone, it costs one
 * statement, as before. It takes no claim lock, so it never waits for a claim of other messages: as for a
 * single DELETE, the row lock and the status guard make the answer true (one answered cancelled is never
 * sent), and rows held by another transaction are retried one at a time, so it cannot deadlock.
 */
export function createCancelBatcher(pool: Pool): (input: CancelOne) => Promise<Message> {
  async function cancelTogether(batch: readonly CancelOne[]): Promise<Answer[]> {
    const items = [...new Map(batch.map((c) => [c.id, c])).values()];
    const cancelled = new Map((await cancelUnheldOpenMessages(pool, items)).map((m) => [m.id, m]));
    const found = await findMessages(
      pool,
      items.filter((c) => !cancelled.has(c.id)).map((c) => c.id),
    );
    // Still open: another transaction held its row (a claim taking it, say). Asked again alone, waiting.
    const held = items.filter((c) => isOpen(found.get(c.id)));
    for (const { cancelled: now, message } of await Promise.all(
      held.map((c) => cancelOpenMessage(pool, c)),
    )) {
      if (message) (now ? cancelled : found).set(message.id, message);
    }
    return batch.map(({ id }): Answer => {
      try {
        return { message: answer(id, cancelled.has(id), cancelled.get(id) ?? found.get(id)) };
      } catch (err) {
        return { error: err };
      }
    });
  }

  const coalescer = createCoalescer<CancelOne, Answer>({
    maxBatch: MAX_JOINED_IDS,
    maxConcurrent: 1,
    run: cancelTogether,
    // A joined statement that fails fails for every id in it (the database, not one id, refused it).
    splitOnError: () => false,
  });
  return async (input) => {
    const result = await coalescer.submit(input);
    if ('error' in result) throw result.error;
    return result.message;
  };
}
