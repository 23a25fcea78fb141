import type { Publisher } from '../broker/publisher';
import { createCoalescer } from '../coalescer';
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
  const coalescer = createCoalescer<readonly NewMessage[], Written>({
    maxBatch: opts.maxRows,
    maxConcurrent: opts.concurrency,
    weight: (messages) => messages.length,
    run: async (batches) => {
      const inserted = await insertMessages(deps.pool, batches.flat(), deps.publisher.horizonMs);
      const written: Written = { inserted, published: dispatchInserted(deps, inserted) };
      return batches.map(() => written);
    },
    splitOnError: () => true,
  });
  return { write: (messages) => coalescer.submit(messages) };
}
