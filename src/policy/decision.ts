import type { Channel } from './snapshot';

/**
 * Why a message waits: not due yet (or its account paused), its account's rate is taken, the follower's
 * day is over the account's frequency cap (moved to the next day), or a sequence step fell due in its
 * quiet hours (moved to their end). Metrics labels.
 */
export const EARLY_REASON = {
  notDue: 'early',
  sendRate: 'send_rate',
  frequencyCap: 'frequency_cap',
  quietHours: 'quiet_hours',
} as const;
export type EarlyReason = (typeof EARLY_REASON)[keyof typeof EARLY_REASON];

/** How a message is let through: without a window check, in the follower's window, or on its fallback. */
export const CLAIMED_AS = { unchecked: 'send', window: 'send:window', fallback: 'send:fallback' } as const;
export type ClaimedAs = (typeof CLAIMED_AS)[keyof typeof CLAIMED_AS];

/** Why a message is skipped (its `status_reason`). */
export const CLAIM_SKIP_REASON = {
  stale: 'stale',
  unsubscribed: 'unsubscribed',
  windowClosed: 'window_closed',
  accountDisabled: 'account_disabled',
  frequencyCap: 'frequency_cap',
  noSubscription: 'no_subscription',
  quietHours: 'quiet_hours',
} as const;
export type ClaimSkipReason = (typeof CLAIM_SKIP_REASON)[keyof typeof CLAIM_SKIP_REASON];

/** What the claim does with one open message. */
export type Decision =
  /** Goes out now on `channel` (`sending`, attempts + 1); `as` fallback: its fallback replaces it. */
  | { readonly kind: 'send'; readonly channel: Channel; readonly as: ClaimedAs }
  /** Stays queued with its due time moved to `to` (a pause's end, quiet hours' end, the next capped day). */
  | { readonly kind: 'move'; readonly to: Date; readonly reason: EarlyReason }
  /** Skipped for good. */
  | { readonly kind: 'skip'; readonly reason: ClaimSkipReason }
  /** A cancellation in the ledger covers it: marked `cancelled`. */
  | { readonly kind: 'cancelled' }
  /** Left as it is, its wake-up re-delayed by `remainingMs` (not due yet, or its account's rate taken). */
  | {
      readonly kind: 'early';
      readonly remainingMs: number;
      readonly reason: typeof EARLY_REASON.notDue | typeof EARLY_REASON.sendRate;
    };
