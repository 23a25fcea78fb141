import { withTransaction } from '../db/pool';
import { startNextPaths } from './start-paths';
import { takeTimedOutWaits } from '../store/journey-waits';
import { passJob, type PassJob } from '../scheduling/repeat-passes';
import { insertScheduled, publishScheduled, type ScheduleDeps } from '../scheduling/schedule-messages';

/** The job; a pass returns how many waits it timed out. */
export type JourneyTimeouts = PassJob<number>;

/**
 * Takes the no path of every journey wait whose timeout has come, run by every worker (each takes waits
 * the others do not hold: `FOR UPDATE SKIP LOCKED`): in one transaction per `batchSize` waits, the waits
 * resolve `no` and the paths they lead to start from their deadline — their steps scheduled, their own
 * waits recorded — so a crash takes all of a batch or none of it, and an action racing for a wait finds it
 * resolved (or resolves it first, and the timeout finds it gone). Wake-ups are published after commit, as
 * every producer's (the outbox covers a crash in between).
 */
export function createJourneyTimeouts(
  deps: ScheduleDeps & { readonly options: { intervalMs: number; batchSize: number } },
): JourneyTimeouts {
  const { pool, logger, options } = deps;

  async function pass(isStopped: () => boolean): Promise<number> {
    let timedOut = 0;
    while (!isStopped()) {
      const { taken, scheduled } = await withTransaction(pool, async (tx) => {
        const resolved = await takeTimedOutWaits(tx, options.batchSize);
        const paths = await startNextPaths(
          tx,
          resolved.map((r) => ({ ...r, requestId: null })),
          'no',
        );
        return { taken: resolved.length, scheduled: await insertScheduled(deps, tx, paths.messages) };
      });
      await publishScheduled(deps, scheduled);
      timedOut += taken;
      if (taken < options.batchSize) break;
    }
    if (timedOut > 0) logger.debug({ timedOut }, 'journey waits timed out');
    return timedOut;
  }

  return passJob({ intervalMs: options.intervalMs, logger, what: 'journey timeouts pass', pass });
}
