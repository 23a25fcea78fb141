import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { ensureMessagePartitions, slotsAhead } from '../store/message-partitions';
import { passJob, type PassJob } from './repeat-passes';

/** The keeper; a pass returns how many partitions it created. */
export type PartitionKeeper = PassJob<number>;

/**
 * Keeps the partitions of scheduled_messages (and delivery_attempts) ready that new rows go to: from one
 * partition back to two beyond the publishing horizon (slotsAhead). Every api and worker process runs it
 * (creating one is idempotent and serialized in Postgres), once before it takes work and then a few times
 * per partition's span, at least every 10 s: a new day's partition exists long before its first row, and
 * a process that started while Postgres was unreachable creates what is missing soon after it is back.
 */
export function createPartitionKeeper(deps: {
  pool: Pool;
  logger: Logger;
  options: { partitionMs: number; horizonMs: number };
}): PartitionKeeper {
  const { pool, logger, options } = deps;
  return passJob({
    intervalMs: Math.min(10_000, Math.max(1000, options.partitionMs / 4)),
    logger,
    what: 'partition keeper pass',
    pass: async () => {
      const slots = slotsAhead(Date.now(), options.horizonMs, options.partitionMs);
      const created = await ensureMessagePartitions(pool, slots, options.partitionMs);
      if (created > 0) logger.info({ created }, 'message partitions created');
      return created;
    },
  });
}
