/** Runs items submitted one by one in batches; each caller gets its own item's result or error. */
export interface Coalescer<I, O> {
  submit(item: I): Promise<O>;
}

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Coalesces concurrent calls, as a database's group commit does: an item submitted while fewer than
 * `maxConcurrent` batches run starts a batch at once (alone, when nothing else waits: no added latency);
 * items submitted while they all run wait and go together in the next batch (up to `maxBatch`, counted in
 * items or, with `weight`, in what each weighs: the rows of a schedule, say; a batch takes at least one). `run`
 * returns one result per item, in order. When a batch of several fails and `splitOnError` says so, each of
 * its items is run again alone, so that one item the database refuses fails only its own caller.
 */
export function createCoalescer<I, O>(opts: {
  readonly maxBatch: number;
  readonly maxConcurrent: number;
  readonly weight?: (item: I) => number;
  readonly run: (items: readonly I[]) => Promise<readonly O[]>;
  readonly splitOnError: (err: unknown) => boolean;
}): Coalescer<I, O> {
  const queue: Waiting<I, O>[] = [];
  let running = 0;

  async function runBatch(batch: readonly Waiting<I, O>[]): Promise<void> {
    try {
      const results = await opts.run(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      if (batch.length === 1 || !opts.splitOnError(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      await Promise.all(batch.map((w) => runBatch([w])));
    }
  }

  /** How many of the queue's first items make the next batch. */
  function batchLength(): number {
    if (!opts.weight) return opts.maxBatch;
    let n = 1;
    let total = opts.weight(queue[0].item);
    while (n < queue.length && total + opts.weight(queue[n].item) <= opts.maxBatch) {
      total += opts.weight(queue[n].item);
      n++;
    }
    return n;
  }

  function pump(): void {
    while (queue.length > 0 && running < opts.maxConcurrent) {
      running++;
      void runBatch(queue.splice(0, batchLength())).finally(() => {
        running--;
        pump();
      });
    }
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      });
    },
  };
}
