import { createCoalescer } from '../coalescer';
import { type ProcessDeps, processPushes } from './process-push';

/**
 * Pushes recorded while this many processing transactions run wait and are processed together in the
 * next (up to PROCESS_BATCH): a surge of follows costs one transaction — one read of the active sequences,
 * one statement per table — per batch rather than per follow.
 */
const PROCESS_CONCURRENCY = 1;
const PROCESS_BATCH = 200;

/**
 * Returns the api's `processLater`: each recorded push is processed (`processPushes`) with those recorded
 * meanwhile; resolves with its outcome (null when another process took it). A batch that fails is retried
 * push by push, so that one push that cannot be processed fails alone; that one is left to the worker's
 * sweep of stale pushes.
 */
export function createPushProcessor(deps: ProcessDeps): (pushId: number) => Promise<string | null> {
  const processor = createCoalescer<number, string | null>({
    maxBatch: PROCESS_BATCH,
    maxConcurrent: PROCESS_CONCURRENCY,
    run: async (ids) => {
      const outcomes = await processPushes(deps, ids);
      return ids.map((id) => outcomes.get(id) ?? null);
    },
    splitOnError: () => true,
  });
  return (pushId) => processor.submit(pushId);
}
