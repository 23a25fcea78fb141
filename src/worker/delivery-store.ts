import type { Pool } from '../db/pool';
import { pauseAccount } from '../store/account-states';
import { claimDue, type ClaimResult } from '../store/claim-due';
import { closeWindow } from '../store/follower-window';
import { type Outcome, recordOutcomes } from '../store/record-outcomes';
import { reserveSends, type SendCount, type SendReservation } from '../store/send-pacing';

/**
 * The statements deliverDue runs, bound to a pool: passed in, so that its loop (slices, send slots, stops
 * and failures) can be tested without Postgres.
 */
export interface DeliveryStore {
  /** `claimDue`: decides and claims what of `ids` is due, in one transaction (read, decide, write). */
  claimDue(
    ids: readonly string[],
    toleranceMs: number,
    uncheckedAppIds: readonly string[],
  ): Promise<ClaimResult>;
  /** `recordOutcomes`: every outcome of a slice, one round-trip. */
  recordOutcomes(outcomes: readonly Outcome[]): Promise<void>;
  /** `pauseAccount`: holds the account's messages until `until`. */
  pauseAccount(appId: string, until: Date, reason: string): Promise<void>;
  /** `closeWindow`: the follower's contact window has no allowance left. */
  closeWindow(appId: string, openid: string): Promise<void>;
  /** `reserveSends`: the next slots of each account's deployment-wide send rate, one round-trip. */
  reserveSends(counts: readonly SendCount[]): Promise<SendReservation[]>;
}

/** The delivery statements on `pool`. */
export function createDeliveryStore(pool: Pool): DeliveryStore {
  return {
    claimDue: (ids, toleranceMs, uncheckedAppIds) => claimDue(pool, ids, toleranceMs, uncheckedAppIds),
    recordOutcomes: (outcomes) => recordOutcomes(pool, outcomes),
    pauseAccount: (appId, until, reason) => pauseAccount(pool, appId, until, reason),
    closeWindow: (appId, openid) => closeWindow(pool, appId, openid),
    reserveSends: (counts) => reserveSends(pool, counts),
  };
}
