import type { CHANNELS } from '../contract/messages';
import type { QuietHours } from './quiet-hours';

export type { QuietHours };

/** The channels a message goes out on. */
export type Channel = (typeof CHANNELS)[number];

/** One open message of a claimed slice, as the claim read it (its row locked). */
export interface MessageSnapshot {
  readonly id: string;
  readonly appId: string;
  readonly openid: string;
  readonly channel: Channel;
  /** The channel of its fallback; null without one. */
  readonly fallback: 'template' | 'notice' | null;
  /** The template of the notice it may go out as (its own channel's, or its notice fallback's); else null. */
  readonly noticeTemplate: string | null;
  readonly dueAt: Date;
  /** `intended_at + max_lateness_ms`: later than this it is not worth sending; null without a limit. */
  readonly staleAt: Date | null;
  /** A cancellation in the ledger covers it. */
  readonly coveredByLedger: boolean;
  /** It counts against the account's frequency cap (a sequence step, or an API message that asked). */
  readonly frequencyCapped: boolean;
  /**
   * Null for a message that is no sequence step (or whose sequence is gone); else the sequence's quiet
   * hours: its own, `false` for none, or null for the account's default.
   */
  readonly sequence: { readonly quietHours: QuietHours | false | null } | null;
}

/** The account of a message, as far as the claim's rules need it. */
export interface AccountSnapshot {
  /** Disabled (`enabled: false`): its messages are skipped once due. */
  readonly disabled: boolean;
  /** False for an account whose contact window is not checked here (window policy `none`). */
  readonly windowChecked: boolean;
  /** Its pause (daily quota, a refused configuration), if any: in force while later than now. */
  readonly pausedUntil: Date | null;
  readonly frequencyCapPerDay: number | null;
  /** Its default quiet hours, and the zone every quiet hours of it are read in (null: no account row). */
  readonly quietHours: QuietHours | null;
  readonly timeZone: string | null;
  readonly sendRatePerSecond: number | null;
  /** How far its deployment-wide send rate is reserved (`send_pacing.next_at`), if ever. */
  readonly rateReservedUntil: Date | null;
}

/** The follower's row (locked), for a follower the service has heard from. */
export interface FollowerSnapshot {
  readonly subscribed: boolean;
  readonly windowExpiresAt: Date | null;
  readonly windowRemaining: number;
  /** The day (YYYY-MM-DD, Asia/Shanghai) `cappedSent` counts; null if never counted. */
  readonly cappedDay: string | null;
  readonly cappedSent: number;
}

/** Everything the claim decides one message from. */
export interface ClaimSnapshot {
  readonly message: MessageSnapshot;
  readonly account: AccountSnapshot;
  /** Null for a follower the service never heard from (no push, no row). */
  readonly follower: FollowerSnapshot | null;
  /** Acceptances of the message's notice template the follower has left (0 without a notice template). */
  readonly acceptancesLeft: number;
}

/** The database's clock, read by the claim's snapshot statement: the rules use it, never the node's. */
export interface PolicyClock {
  /** `now()`: the claim transaction's start. Due times, staleness, pauses and quiet hours are read at it. */
  readonly now: Date;
  /** `clock_timestamp()` once the rows were locked: the send-rate reservations' clock. */
  readonly clock: Date;
  /** Today in the frequency cap's day (Asia/Shanghai), YYYY-MM-DD, and when the next such day starts. */
  readonly capDay: string;
  readonly nextCapDayAt: Date;
}

/** The claim's settings. */
export interface PolicyOptions {
  /** A message due within this (ms) counts as due now. */
  readonly toleranceMs: number;
  /** How far ahead an account's sends may be reserved before its due messages wait (ms). */
  readonly rateHorizonMs: number;
}
