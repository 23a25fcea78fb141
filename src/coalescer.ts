/** Runs items submitted one by one in batches; each caller gets its own item's result or error. */
export interface Coalescer<I, O> {
  submit(item: I): Promise<O>;
  /**
   * Takes back every item not started yet, in order (their callers' promises reject with
   * `WithdrawnError`: the one who withdraws them deals with them), so that no batch starts with them.
   */
  withdraw(): I[];
  /** Resolves once no batch runs (at once when none does). */
  idle(): Promise<void>;
}

/** What a withdrawn item's `submit` rejects with. */
export class WithdrawnError extends Error {
  constructor() {
    super('withdrawn before its batch started');
    this.name = 'WithdrawnError';
  }
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
 * items or, with `weight`, in what each weighs: the rows of a schedule, say; a batch takes at least one).
 * With `fillWaitMs`, an item submitted while a batch runs waits up to that long for more to fill its batch
 * (an idle coalescer still starts at once: there is nothing in flight to share a round-trip with). `run`
 * returns one result per item, in order. When a batch of several fails and `splitOnError` says so, each
 * of its items is run again alone, so that one item the database refuses fails only its own caller.
 */
export function createCoalescer<I, O>(opts: {
  readonly maxBatch: number;
  readonly maxConcurrent: number;
  readonly weight?: (item: I) => number;
  readonly fillWaitMs?: number;
  readonly run: (items: readonly I[]) => Promise<readonly O[]>;
  readonly splitOnError: (err: unknown) => boolean;
}): Coalescer<I, O> {
  const weight = opts.weight ?? (() => 1);
  const queue: Waiting<I, O>[] = [];
  let queued = 0;
  let timer: NodeJS.Timeout | null = null;
  const running = new Set<Promise<void>>();

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

  /** The queue's first items that make the next batch (at least one). */
  function takeBatch(): Waiting<I, O>[] {
    let n = 1;
    let total = weight(queue[0].item);
    while (n < queue.length && total + weight(queue[n].item) <= opts.maxBatch) {
      total += weight(queue[n].item);
      n++;
    }
    queued -= total;
    return queue.splice(0, n);
  }

  function pump(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    while (queue.length > 0 && running.size < opts.maxConcurrent) {
      const run = runBatch(takeBatch());
      running.add(run);
      void run.finally(() => {
        running.delete(run);
        pump();
      });
    }
  }

  return {
    submit(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        queued += weight(item);
        if (opts.fillWaitMs === undefined || running.size === 0 || queued >= opts.maxBatch) pump();
        else timer ??= setTimeout(pump, opts.fillWaitMs);
      });
    },
    withdraw() {
      if (timer) clearTimeout(timer);
      timer = null;
      queued = 0;
      return queue.splice(0).map((w) => {
        w.reject(new WithdrawnError());
        return w.item;
      });
    },
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
