import type { Publisher } from '../broker/publisher';
import type { Pool } from '../db/pool';
import { isTransientDbError } from '../db/errors';
import type { Logger } from '../logger';
import { dispatch } from './dispatch';
import { leaseForRelay, sweepStuckSending } from './due-store';

export interface RelayOptions {
  readonly intervalMs: number;
  readonly pendingAfterMs: number;
  readonly overdueAfterMs: number;
  readonly batchSize: number;
  readonly sendingTimeoutMs: number;
  /** Accounts whose stuck `sending` rows are sent again rather than marked `unknown`. */
  readonly atLeastOnceAppIds: readonly string[];
}

export interface Relay {
  /** One full pass; returns how many wake-ups it published. Exposed for tests and the CLI. */
  runOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The outbox relay: publishes wake-ups for rows left `pending` (crash or broker outage between commit and
 * confirm), for `queued` rows whose wake-up was lost, and for stuck `sending` rows of at-least-once
 * accounts; marks the other stuck `sending` rows `unknown`. Runs in every worker; leases keep them apart.
 */
export function createRelay(deps: {
  pool: Pool;
  publisher: Publisher;
  logger: Logger;
  options: RelayOptions;
  /** Another periodic safety net run on each pass (recorded but unprocessed webhook pushes). */
  alsoRun?: () => Promise<unknown>;
}): Relay {
  const { pool, logger, options } = deps;
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<unknown> | null = null;
  let stopped = false;

  async function runOnce(): Promise<number> {
    let published = 0;
    await deps.alsoRun?.();
    const swept = await sweepStuckSending(pool, options.sendingTimeoutMs, options.atLeastOnceAppIds);
    if (swept.unknown > 0)
      logger.warn({ count: swept.unknown }, 'sends timed out in `sending`; marked unknown');
    const rows = [...swept.requeued];
    for (;;) {
      rows.push(
        ...(await leaseForRelay(pool, {
          pendingAfterMs: options.pendingAfterMs,
          overdueAfterMs: options.overdueAfterMs,
          limit: options.batchSize,
        })),
      );
      if (rows.length === 0) break;
      const { queued, failed } = await dispatch(deps, rows, 'relay');
      published += queued;
      if (failed > 0 || rows.length < options.batchSize || stopped) break;
      rows.length = 0;
    }
    if (published > 0) logger.info({ published }, 'relay published wake-ups');
    return published;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      current = runOnce()
        .catch((err: unknown) => {
          const level = isTransientDbError(err) ? 'warn' : 'error';
          logger[level]({ err: (err as Error).message }, 'relay pass failed');
        })
        .finally(schedule);
    }, options.intervalMs);
  }

  return {
    runOnce,
    start: schedule,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
