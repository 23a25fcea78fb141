import { createCoalescer } from '../coalescer';
import type { Logger } from '../logger';
import type { Delivery } from './ack-tracker';
import { loggableError } from '../loggable-error';

/** Gathers received wake-ups into batches and runs a bounded number of them at once. */
export interface Batcher {
  /** Takes one delivery; once stopping, hands it straight back (requeue). */
  add(delivery: Delivery): void;
  /**
   * Stops taking deliveries: at once requeues those not started (another worker takes them), then waits
   * for the batches in hand, whose rows are claimed in `sending` and would be stranded if left.
   */
  stop(): Promise<void>;
}

/** Messages a delivery stands for (a wake-up carries several; a poison body counts as one). */
const weight = (d: Delivery) => d.wakeUp?.ids.length ?? 1;

/**
 * Hands deliveries over in batches of up to `batchSize` messages (wake-ups carry several). While a batch
 * is being handled, the next waits at most `batchWaitMs` to fill; an idle worker hands a delivery over at
 * once (waiting would add latency and save nothing: there is no claim in flight to share a round-trip
 * with). A burst still batches: its deliveries arrive while the first batches run. A batch that rejects
 * has all its deliveries requeued.
 */
export function createBatcher(deps: {
  batchSize: number;
  batchWaitMs: number;
  /**
   * Batches handled at once; the rest of the deliveries wait here, unclaimed: if this process dies they
   * are simply redelivered, whereas a claimed row would be stranded in `sending` (and end `unknown`). So
   * only what can be sent soon is claimed.
   */
  maxConcurrentBatches: number;
  /** Handles a batch; `stopping()` turns true once stop() was called (hand back what is not started). */
  onBatch: (batch: Delivery[], stopping: () => boolean) => Promise<void>;
  logger: Logger;
}): Batcher {
  const { logger } = deps;
  let stopping = false;
  const coalescer = createCoalescer<Delivery, void>({
    maxBatch: deps.batchSize,
    maxConcurrent: deps.maxConcurrentBatches,
    weight,
    fillWaitMs: deps.batchWaitMs,
    run: async (batch) => {
      try {
        await deps.onBatch([...batch], () => stopping);
      } catch (err) {
        logger.error({ err: loggableError(err) }, 'batch handler failed; requeueing its wake-ups');
        for (const d of batch) d.nack(true);
      }
      return batch.map(() => undefined);
    },
    splitOnError: () => false,
  });

  return {
    add(delivery) {
      if (stopping) return delivery.nack(true);
      // Settled by the batch (or handed back by stop()), not by whoever added it.
      coalescer.submit(delivery).catch(() => undefined);
    },
    async stop() {
      stopping = true;
      for (const d of coalescer.withdraw()) d.nack(true);
      await coalescer.idle();
    },
  };
}
