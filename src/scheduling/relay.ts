import type { Publisher } from '../broker/publisher';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { dispatch, type Dispatchable } from './dispatch';
import { passJob, type PassJob } from './repeat-passes';
import { leaseForRelay } from '../store/relay-lease';
import { sweepStuckSending } from '../store/sweep-stuck-sending';
import { leaseOutbox } from '../store/wake-up-outbox';

/**
 * After RabbitMQ comes back from a restart, wake-ups that fell due to move from one delay level to the
 * next while it was down can be stranded for minutes: at boot, a level queue's at-least-once
 * dead-lettering may run before the broker has recovered the next level's exchange or bindings, find no
 * route, and retry only after `dead_letter_worker_publisher_confirm_timeout` (180 s by default on 3.10).
 * So, once the due queue has had RECOVERY_GRACE_MS to drain after a reconnect, and for RECOVERY_WINDOW_MS,
 * `queued` rows overdue by more than RECOVERY_GRACE_MS that nobody touched since the reconnect get one
 * new wake-up each, instead of waiting RELAY_OVERDUE_AFTER_MS. The stranded wake-up, when it finally
 * arrives, finds the row sent and is dropped.
 */
export const RECOVERY_GRACE_MS = 15_000;
export const RECOVERY_WINDOW_MS = 10 * 60_000;

export interface RelayOptions {
  readonly intervalMs: number;
  readonly pendingAfterMs: number;
  readonly overdueAfterMs: number;
  readonly batchSize: number;
  readonly sendingTimeoutMs: number;
  /** Accounts whose stuck `sending` rows are sent again rather than marked `unknown`. */
  readonly atLeastOnceAppIds: readonly string[];
  /** After a broker reconnect: see RECOVERY_GRACE_MS (the default) and RECOVERY_WINDOW_MS. */
  readonly recoveryGraceMs?: number;
  readonly recoveryWindowMs?: number;
}

/** The relay; a pass returns how many wake-ups it published. */
export type Relay = PassJob<number>;

/** Outbox entries leased per round-trip: a single request's entry names one message, a batch's hundreds. */
const OUTBOX_ENTRIES_PER_LEASE = 20;

/**
 * The outbox relay. Its loop is over the wake_up_outbox: it publishes the wake-ups of entries older than
 * `pendingAfterMs` (a crash or a broker outage between the commit and the confirms) and deletes each entry
 * once they are confirmed; the outbox is the only record of a schedule whose wake-up is not confirmed.
 * Then the safety nets for wake-ups lost after they were confirmed: `queued` rows overdue by
 * `overdueAfterMs` (or, just after a broker restart, whose wake-up may be stranded) and stuck `sending`
 * rows of at-least-once accounts get a new one; the other stuck `sending` rows are marked `unknown`.
 * Runs in every worker; leases keep them apart.
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
  const graceMs = options.recoveryGraceMs ?? RECOVERY_GRACE_MS;
  const windowMs = options.recoveryWindowMs ?? RECOVERY_WINDOW_MS;

  /** The recovery sweep's terms while it applies (see RECOVERY_GRACE_MS), else null. */
  function recovery(): { since: Date; graceMs: number } | null {
    const at = deps.publisher.reconnectedAt;
    if (at === null) return null;
    const sinceMs = Date.now() - at;
    return sinceMs >= graceMs && sinceMs <= windowMs ? { since: new Date(at), graceMs } : null;
  }

  /** The outbox loop: entries past `pendingAfterMs`, 20 a round-trip, until none is left or one fails. */
  async function publishOwed(isStopped: () => boolean): Promise<number> {
    let published = 0;
    for (;;) {
      const owed = await leaseOutbox(pool, options.pendingAfterMs, OUTBOX_ENTRIES_PER_LEASE);
      if (owed.entryIds.length === 0) break;
      const { queued, failed } = await dispatch(deps, owed.rows, 'relay', owed.entryIds);
      published += queued;
      if (failed > 0 || owed.entryIds.length < OUTBOX_ENTRIES_PER_LEASE || isStopped()) break;
    }
    return published;
  }

  /** The safety nets: `requeued` stuck sends, overdue (or stranded) `queued` rows, `batchSize` at a time. */
  async function republishLost(requeued: readonly Dispatchable[], isStopped: () => boolean): Promise<number> {
    let published = 0;
    const rows = [...requeued];
    for (;;) {
      rows.push(
        ...(await leaseForRelay(pool, {
          overdueAfterMs: options.overdueAfterMs,
          limit: options.batchSize,
          recovery: recovery(),
        })),
      );
      if (rows.length === 0) break;
      const { queued, failed } = await dispatch(deps, rows, 'relay');
      published += queued;
      if (failed > 0 || rows.length < options.batchSize || isStopped()) break;
      rows.length = 0;
    }
    return published;
  }

  async function pass(isStopped: () => boolean): Promise<number> {
    await deps.alsoRun?.();
    const swept = await sweepStuckSending(pool, options.sendingTimeoutMs, options.atLeastOnceAppIds);
    if (swept.unknown > 0)
      logger.warn({ count: swept.unknown }, 'sends timed out in `sending`; marked unknown');
    const published = (await publishOwed(isStopped)) + (await republishLost(swept.requeued, isStopped));
    if (published > 0) logger.info({ published }, 'relay published wake-ups');
    return published;
  }

  return passJob({ intervalMs: options.intervalMs, logger, what: 'relay pass', pass });
}
