import type { Publisher } from '../broker/publisher';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { pumpIntoOutbox } from '../store/horizon-pump';
import { dispatch } from './dispatch';
import { passJob, type PassJob } from './repeat-passes';

/** The pump; a pass returns how many wake-ups it published (0 when another process pumps). */
export type HorizonPump = PassJob<number>;

/**
 * The horizon pump, run by every worker, one process at a time (an advisory lock per batch): rows due
 * beyond the publishing horizon when they were scheduled await it in Postgres; as they come within the
 * horizon it moves them into their day's partition and the outbox, `batchSize` at a time in due order,
 * and publishes their wake-ups as the schedule path does (rows due together share one). It waits while the broker is unreachable, so
 * an outage does not empty the horizon into the outbox; what a failed publish leaves there the relay
 * republishes.
 */
export function createHorizonPump(deps: {
  pool: Pool;
  publisher: Publisher;
  logger: Logger;
  options: { intervalMs: number; batchSize: number; partitionMs: number };
}): HorizonPump {
  const { pool, publisher, logger, options } = deps;

  async function pass(isStopped: () => boolean): Promise<number> {
    let published = 0;
    while (!isStopped() && publisher.ready) {
      const batch = await pumpIntoOutbox(pool, publisher.horizonMs, options.partitionMs, options.batchSize);
      if (batch === null || batch.moved === 0) break;
      if (batch.outboxId !== null) {
        const { queued, failed } = await dispatch(deps, batch.rows, 'pump', [batch.outboxId]);
        published += queued;
        if (failed > 0) break;
      }
      if (batch.moved < options.batchSize) break;
    }
    if (published > 0) logger.debug({ published }, 'horizon pump published wake-ups');
    return published;
  }

  return passJob({ intervalMs: options.intervalMs, logger, what: 'horizon pump pass', pass });
}
