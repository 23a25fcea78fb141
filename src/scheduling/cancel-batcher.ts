import type { Pool } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { findMessages, type Message } from '../store/message-store';
import { MESSAGE_STATUS } from '../store/message-status';
import { cancelOpenById } from './cancel';

/** One cancellation by id as `DELETE /v1/messages/:id` asks for it. */
export interface CancelOne {
  readonly id: string;
  readonly reason: string;
  readonly actor: string;
}

/** Most ids one joined cancellation carries (the rest wait for the next). */
const MAX_JOINED_IDS = 1000;

interface Waiting {
  readonly input: CancelOne;
  readonly resolve: (message: Message) => void;
  readonly reject: (err: unknown) => void;
}

/** What one id's answer is, from the joined cancellation's result: the message, or why not. */
function answer(id: string, cancelled: Set<string>, message: Message | undefined): Message {
  if (!message) throw new NotFoundError(`message ${id}`);
  if (cancelled.has(id) || message.status === MESSAGE_STATUS.cancelled) return message;
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
 * in the next (one transaction per reason, then one read of their rows). Under load, a DELETE costs a
 * share of one transaction instead of a commit of its own; alone, it waits for nothing. Each is as true as
 * a bulk cancellation (`cancelOpenById`): one answered cancelled is never sent.
 */
export function createCancelBatcher(pool: Pool): (input: CancelOne) => Promise<Message> {
  let waiting: Waiting[] = [];
  let running = false;

  async function cancelTogether(batch: readonly Waiting[]): Promise<void> {
    const byReason = new Map<string, CancelOne[]>();
    for (const { input } of batch) {
      const key = JSON.stringify([input.reason, input.actor]);
      const group = byReason.get(key);
      if (group) group.push(input);
      else byReason.set(key, [input]);
    }
    try {
      const cancelled = new Set<string>();
      for (const group of byReason.values()) {
        const ids = [...new Set(group.map((c) => c.id))];
        for (const id of await cancelOpenById(pool, {
          ids,
          reason: group[0].reason,
          actor: group[0].actor,
        })) {
          cancelled.add(id);
        }
      }
      const messages = await findMessages(pool, [...new Set(batch.map((w) => w.input.id))]);
      for (const w of batch) {
        try {
          w.resolve(answer(w.input.id, cancelled, messages.get(w.input.id)));
        } catch (err) {
          w.reject(err);
        }
      }
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, MAX_JOINED_IDS);
      waiting = waiting.slice(MAX_JOINED_IDS);
      await cancelTogether(batch);
    }
    running = false;
  }

  return (input) =>
    new Promise<Message>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!running) void drain();
    });
}
