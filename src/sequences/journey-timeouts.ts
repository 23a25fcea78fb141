import { type PoolClient, withTransaction } from '../db/pool';
import { startNextPaths } from './start-paths';
import { type ResolvedWait, takeMetVariableWaits, takeTimedOutWaits } from '../store/journey-waits';
import { passJob, type PassJob } from '../scheduling/repeat-passes';
import { insertScheduled, publishScheduled, type ScheduleDeps } from '../scheduling/schedule-messages';

/** The job; a pass returns how many waits it timed out. */
export type JourneyTimeouts = PassJob<number>;

/**
 * Takes the no path of every journey wait whose timeout has come — and the yes path of every wait for a
 * variable the enrollment had a value for before the wait started watching — run by every worker (each takes waits
 * the others do not hold: `FOR UPDATE SKIP LOCKED`): in one transaction per `batchSize` waits, the waits
 * resolve `no` and the paths they lead to start from their deadline — their steps scheduled, their own
 * waits recorded — so a crash takes all of a batch or none of it, and an action racing for a wait finds it
 * resolved (or resolves it first, and the timeout finds it gone). Wake-ups are published after commit, as
 * every producer's (the outbox covers a crash in between).
 */
export function createJourneyTimeouts(
  deps: ScheduleDeps & { readonly options: { intervalMs: number; batchSize: number } },
): JourneyTimeouts {
  const { pool, logger, metrics, options } = deps;

  /** Takes batches of `take`'s waits until one is short, starting the paths on `branch`; returns how many. */
  async function drain(
    isStopped: () => boolean,
    take: (tx: PoolClient, limit: number) => Promise<ResolvedWait[]>,
    branch: 'yes' | 'no',
  ): Promise<number> {
    let count = 0;
    while (!isStopped()) {
      const { taken, scheduled } = await withTransaction(pool, async (tx) => {
        const resolved = await take(tx, options.batchSize);
        const paths = await startNextPaths(
          tx,
          resolved.map((r) => ({ ...r, requestId: null })),
          branch,
        );
        return { taken: resolved.length, scheduled: await insertScheduled(deps, tx, paths.messages) };
      });
      await publishScheduled(deps, scheduled);
      if (taken > 0) metrics.journeyWaits.inc({ outcome: branch, by: 'pass' }, taken);
      count += taken;
      if (taken < options.batchSize) break;
    }
    return count;
  }

  async function pass(isStopped: () => boolean): Promise<number> {
    const timedOut = await drain(isStopped, takeTimedOutWaits, 'no');
    const met = await drain(isStopped, takeMetVariableWaits, 'yes');
    if (timedOut + met > 0) logger.debug({ timedOut, met }, 'journey waits resolved by the pass');
    return timedOut;
  }

  return passJob({ intervalMs: options.intervalMs, logger, what: 'journey timeouts pass', pass });
}
