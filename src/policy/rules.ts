import { quietHoursEnd } from './quiet-hours';
import type {
  ClaimSnapshot,
  FollowerSnapshot,
  MessageSnapshot,
  AccountSnapshot,
  PolicyClock,
  PolicyOptions,
  QuietHours,
} from './snapshot';

/**
 * The claim's rules, one small function each, read by `decide` in its order. `Used` is what the slice
 * already spent, before the message at hand, of the counters the message shares with earlier ones.
 */
export interface Used {
  /** The follower's window allowance spent by earlier messages of the slice. */
  readonly window: number;
  /** The follower's earlier messages moved to the end of their quiet hours, in this slice. */
  readonly quietMoved: number;
  /** The follower's capped sends of earlier messages of the slice. */
  readonly capped: number;
  /** The follower's acceptances of the message's notice template spent by earlier messages. */
  readonly acceptances: number;
  /** The account's earlier messages left waiting for its send rate, in this slice. */
  readonly rateHeld: number;
}

/** The account's pause, if it is in force now. */
export function pauseInForce(account: AccountSnapshot, clock: PolicyClock): Date | null {
  return account.pausedUntil !== null && account.pausedUntil > clock.now ? account.pausedUntil : null;
}

/** Due now, within the tolerance. */
export function isDue(message: MessageSnapshot, clock: PolicyClock, options: PolicyOptions): boolean {
  return message.dueAt.getTime() <= clock.now.getTime() + options.toleranceMs;
}

/** The account's send rate is reserved further ahead than the horizon: its due messages wait. */
export function isRateHeld(account: AccountSnapshot, clock: PolicyClock, options: PolicyOptions): boolean {
  return (
    account.rateReservedUntil !== null &&
    account.rateReservedUntil.getTime() > clock.clock.getTime() + options.rateHorizonMs
  );
}

/** How long the `held`-th (from 0) waiting message of a rate-held account waits: spread at its rate. */
export function rateWaitMs(
  account: AccountSnapshot,
  clock: PolicyClock,
  options: PolicyOptions,
  held: number,
): number {
  const spreadMs = account.sendRatePerSecond ? (held * 1000) / account.sendRatePerSecond : 0;
  return account.rateReservedUntil!.getTime() - clock.clock.getTime() - options.rateHorizonMs + spreadMs;
}

/** Later than its `maxLatenessMs` allows, now. */
export function isStale(message: MessageSnapshot, at: Date): boolean {
  return message.staleAt !== null && message.staleAt < at;
}

/** Still worth sending at `at` (not stale by then). */
export function freshAt(message: MessageSnapshot, at: Date): boolean {
  return message.staleAt === null || message.staleAt >= at;
}

/** The follower unfollowed (a follower never heard from counts as subscribed). */
export function hasUnfollowed(follower: FollowerSnapshot | null): boolean {
  return follower !== null && !follower.subscribed;
}

/** The follower has an acceptance of the message's notice template left (subscription notices). */
export function hasAcceptance(s: ClaimSnapshot, used: Used): boolean {
  return s.message.noticeTemplate !== null && s.acceptancesLeft - used.acceptances > 0;
}

/**
 * A message to someone who unfollowed goes out only as a subscription notice (WeChat delivers those to
 * non-followers through 服务通知): its own channel, or its notice fallback, while an acceptance is left.
 */
export function reachesUnfollowed(s: ClaimSnapshot, used: Used): boolean {
  return (s.message.channel === 'notice' || s.message.fallback === 'notice') && hasAcceptance(s, used);
}

/**
 * The quiet hours that apply: a sequence step's own, else its account's default (`false`: none); API
 * messages have none.
 */
export function quietHoursOf(message: MessageSnapshot, account: AccountSnapshot): QuietHours | null {
  if (message.sequence === null || message.sequence.quietHours === false) return null;
  return message.sequence.quietHours ?? account.quietHours;
}

/** The end of the quiet hours the message falls due in, now; null outside them. */
export function quietEndOf(s: ClaimSnapshot, clock: PolicyClock): Date | null {
  const quiet = quietHoursOf(s.message, s.account);
  if (quiet === null || s.account.timeZone === null) return null;
  return quietHoursEnd(quiet, s.account.timeZone, clock.now);
}

/** The follower's contact window is open at `at`. */
export function windowOpenAt(follower: FollowerSnapshot | null, at: Date): boolean {
  return follower !== null && follower.windowExpiresAt !== null && follower.windowExpiresAt > at;
}

/**
 * The message could still go out at `at` if it waited: not stale by then, and not bound to the window,
 * or with a fallback, or the window still open then (with room for it at place `windowPlace`, if given).
 */
export function canGoOutAt(s: ClaimSnapshot, at: Date, windowPlace: number | null): boolean {
  const { message, account, follower } = s;
  if (!freshAt(message, at)) return false;
  if (message.channel !== 'custom' || !account.windowChecked || message.fallback !== null) return true;
  return windowOpenAt(follower, at) && (windowPlace === null || windowPlace <= follower!.windowRemaining);
}

/**
 * The message counts against the follower's frequency cap: capped, on an account with a cap, to a follower
 * the service has heard from (one it never heard from is not counted).
 */
export function countsAgainstCap(s: ClaimSnapshot): boolean {
  return s.message.frequencyCapped && s.account.frequencyCapPerDay !== null && s.follower !== null;
}

/** The follower's capped sends of today (the count starts from zero on each new day). */
export function cappedToday(follower: FollowerSnapshot, clock: PolicyClock): number {
  return follower.cappedDay === clock.capDay ? follower.cappedSent : 0;
}

/** Sending the message now would take the follower's day over the frequency cap. */
export function overFrequencyCap(s: ClaimSnapshot, clock: PolicyClock, used: Used): boolean {
  if (!countsAgainstCap(s)) return false;
  return cappedToday(s.follower!, clock) + used.capped + 1 > s.account.frequencyCapPerDay!;
}

/** The follower's window is open now with allowance left for one more. */
export function windowHasRoom(follower: FollowerSnapshot | null, clock: PolicyClock, used: Used): boolean {
  return windowOpenAt(follower, clock.now) && used.window < follower!.windowRemaining;
}
