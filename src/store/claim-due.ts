import { type Pool, withTransaction } from '../db/pool';
import {
  CLAIM_LOCKS_SQL,
  CLAIM_ROW,
  CLAIM_SQL,
  type ClaimedAs,
  type ClaimRow,
  type ClaimSkipReason,
  EARLY_REASON,
  type EarlyReason,
} from './claim-sql';
import type { Channel } from './message-status';
import type { Message } from './message-store';

export { CLAIM_SKIP_REASON, CLAIMED_AS, EARLY_REASON } from './claim-sql';
export type { ClaimedAs, ClaimSkipReason, EarlyReason } from './claim-sql';

/** A message the worker now owns (`sending`) and must send. */
export interface ClaimedMessage extends Pick<
  Message,
  'id' | 'appId' | 'openid' | 'channel' | 'payload' | 'dueAt'
> {
  /** Attempts so far, this one included. */
  readonly attempts: number;
  /** How the claim let it through: `send` (no window check), `send:window`, `send:fallback`. */
  readonly claimedAs: ClaimedAs;
  /** The request that scheduled it, for the logs. */
  readonly requestId: string | null;
}

/** What the claim did with a batch of wake-ups, by kind. */
export interface ClaimResult {
  readonly claimed: ClaimedMessage[];
  /**
   * Re-delay by `remainingMs`: not due yet (early arrival, or its account is paused), or due while its
   * account's send rate is reserved further ahead than the horizon (`send_rate`; spread at the rate).
   */
  readonly early: { id: string; dueAt: Date; remainingMs: number; reason: EarlyReason }[];
  /** Found covered by the ledger and marked `cancelled` by this claim. */
  readonly cancelled: string[];
  /** Marked `skipped` by this claim: account disabled, stale, follower unsubscribed, or window closed. */
  readonly skipped: { id: string; reason: ClaimSkipReason }[];
  // Every other id is gone, finished, or being sent by someone else: its wake-up is dropped.
}

/**
 * The consume-time check, one round-trip for a whole batch. It consults the ledger (covered rows become
 * `cancelled`), the account's pause (due time pushed to its end), the follower's subscription and contact
 * window, and claims what may go out (`pending|queued` → `sending`, attempts + 1):
 * - a template message, or any message of an account whose window is not checked here, is claimed;
 * - a customer-service message is claimed while the window is open and has allowance left, consuming one
 *   unit each (the follower rows are locked, in key order, so concurrent workers cannot overspend);
 * - otherwise it goes out on its fallback, or is `skipped` (`window_closed`, `unsubscribed`);
 * - a subscription notice (the message's channel, or its fallback's) goes out only while the follower has
 *   an acceptance of its template left, consuming one (rows locked after the follower's), else it is
 *   `skipped` (`no_subscription`);
 * - a message later than its `max_lateness_ms` is `skipped` (`stale`) instead of sent late;
 * - a message of a disabled account (`enabled: false`) is `skipped` (`account_disabled`) once due;
 * - a capped message (a sequence step, or an API message that asked) over its account's frequency cap for
 *   the follower's day moves to the next day when it can still go out then, else is `skipped`
 *   (`frequency_cap`).
 * Every status change is guarded on the latest row version, so two workers, or a worker and a
 * redelivery, can never both claim a row. Remaining waits use the database clock.
 *
 * The claim holds a shared lock on each account it claims for, taken in a statement of its own so that the
 * claim's snapshot is taken after it: a counted cancellation (`holdClaims`) waits for claims in flight and
 * holds new ones back until its ledger row is committed, so its count of what it stopped is true.
 */
export async function claimDue(
  pool: Pool,
  ids: readonly string[],
  toleranceMs: number,
  uncheckedAppIds: readonly string[],
): Promise<ClaimResult> {
  const { rows } = await withTransaction(pool, async (client) => {
    await client.query(CLAIM_LOCKS_SQL, [ids]);
    return client.query<{
      verdict: ClaimRow;
      id: string;
      due_at: Date | null;
      remaining_ms: number | null;
      reason: string | null;
      app_id: string | null;
      openid: string | null;
      channel: Channel | null;
      payload: Record<string, unknown> | null;
      attempts: number | null;
      request_id: string | null;
    }>(CLAIM_SQL, [ids, toleranceMs, uncheckedAppIds]);
  });
  const result = {
    claimed: [] as ClaimedMessage[],
    early: [] as ClaimResult['early'],
    cancelled: [] as string[],
    skipped: [] as ClaimResult['skipped'],
  };
  for (const r of rows) {
    if (r.verdict === CLAIM_ROW.cancelled) result.cancelled.push(r.id);
    else if (r.verdict === CLAIM_ROW.skipped)
      result.skipped.push({ id: r.id, reason: r.reason as ClaimSkipReason });
    else if (r.verdict === CLAIM_ROW.early)
      result.early.push({
        id: r.id,
        dueAt: r.due_at!,
        remainingMs: Number(r.remaining_ms),
        reason: (r.reason as EarlyReason | null) ?? EARLY_REASON.notDue,
      });
    else {
      result.claimed.push({
        id: r.id,
        appId: r.app_id!,
        openid: r.openid!,
        channel: r.channel!,
        payload: r.payload!,
        dueAt: r.due_at!,
        attempts: r.attempts!,
        claimedAs: r.reason as ClaimedAs,
        requestId: r.request_id,
      });
    }
  }
  return result;
}
