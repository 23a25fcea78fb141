import type { Publisher } from '../broker/publisher';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { insertMessages, type Inserted } from '../store/insert-messages';
import type { NewMessage } from '../store/message-store';
import { dispatchInserted } from './dispatch';

/** Rows written, and their wake-ups being published (resolves when that is over; never rejects). */
export interface Written {
  readonly inserted: Inserted;
  readonly published: Promise<unknown>;
}

export interface ScheduleWriter {
  /** Inserts `messages` (with others' when they arrive together) and starts publishing their wake-ups. */
  write(messages: readonly NewMessage[]): Promise<Written>;
}

interface Waiting {
  readonly messages: readonly NewMessage[];
  resolve(written: Written): void;
  reject(err: unknown): void;
}

/**
 * Group commit for schedules that are not part of a producer's transaction: at most `concurrency` inserts
 * run at once; callers that arrive meanwhile wait, and the next free slot inserts all of them (up to
 * `maxRows` rows) in one statement: one commit, one outbox entry, one round of publishes and one DELETE of
 * the entry for the lot. A lone caller on an idle writer goes straight in, so coalescing costs latency only
 * when the inserts are the bottleneck anyway. Every caller is given the whole statement's `Inserted` and
 * picks its own rows by id. When a shared statement fails, each caller's rows are inserted alone, so that
 * an error reaches only the caller it belongs to.
 */
export function createScheduleWriter(
  deps: { pool: Pool; publisher: Publisher; logger: Logger },
  opts: { concurrency: number; maxRows: number },
): ScheduleWriter {
  const waiting: Waiting[] = [];
  let running = 0;

  async function writeNow(messages: readonly NewMessage[]): Promise<Written> {
    const inserted = await insertMessages(deps.pool, messages);
    return { inserted, published: dispatchInserted(deps, inserted) };
  }

  async function run(batch: readonly Waiting[]): Promise<void> {
    try {
      const written = await writeNow(batch.flatMap((w) => w.messages));
      for (const w of batch) w.resolve(written);
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      await Promise.all(batch.map((w) => writeNow(w.messages).then(w.resolve, w.reject)));
    }
  }

  function startNext(): void {
    while (running < opts.concurrency && waiting.length > 0) {
      const batch = [waiting.shift()!];
      let rows = batch[0].messages.length;
      while (waiting.length > 0 && rows + waiting[0].messages.length <= opts.maxRows) {
        rows += waiting[0].messages.length;
        batch.push(waiting.shift()!);
      }
      running++;
      void run(batch).finally(() => {
        running--;
        startNext();
      });
    }
  }

  return {
    write(messages) {
      return new Promise<Written>((resolve, reject) => {
        waiting.push({ messages, resolve, reject });
        startNext();
      });
    },
  };
}
