import { CLAIM_SKIP_REASON, CLAIMED_AS, type ClaimSkipReason, type Decision, EARLY_REASON } from './decision';
import {
  canGoOutAt,
  hasAcceptance,
  hasUnfollowed,
  isDue,
  isRateHeld,
  isStale,
  overFrequencyCap,
  pauseInForce,
  quietEndOf,
  rateWaitMs,
  reachesUnfollowed,
  type Used,
  windowHasRoom,
} from './rules';
import type { ClaimSnapshot, PolicyClock, PolicyOptions } from './snapshot';

const skip = (reason: ClaimSkipReason): Decision => ({ kind: 'skip', reason });

/**
 * What the claim does with one open message, given what earlier messages of its slice spent (`used`).
 * The rules in order: the ledger; the account's pause; not due yet; the account's send rate; the account
 * disabled; stale; unfollowed (only a notice still reaches them); quiet hours (moved to their end when it
 * can go out then, else skipped now); the frequency cap (moved to the next day likewise); then the channel.
 */
export function decide(s: ClaimSnapshot, clock: PolicyClock, used: Used, options: PolicyOptions): Decision {
  const { message, account } = s;
  if (message.coveredByLedger) return { kind: 'cancelled' };
  const pausedUntil = pauseInForce(account, clock);
  if (pausedUntil !== null) return { kind: 'move', to: pausedUntil, reason: EARLY_REASON.notDue };
  if (!isDue(message, clock, options)) {
    const remainingMs = message.dueAt.getTime() - clock.now.getTime();
    return { kind: 'early', remainingMs, reason: EARLY_REASON.notDue };
  }
  if (isRateHeld(account, clock, options)) {
    const remainingMs = rateWaitMs(account, clock, options, used.rateHeld);
    return { kind: 'early', remainingMs, reason: EARLY_REASON.sendRate };
  }
  if (account.disabled) return skip(CLAIM_SKIP_REASON.accountDisabled);
  if (isStale(message, clock.now)) return skip(CLAIM_SKIP_REASON.stale);
  const unfollowed = hasUnfollowed(s.follower);
  if (unfollowed && !reachesUnfollowed(s, used)) return skip(CLAIM_SKIP_REASON.unsubscribed);
  const quietEnd = quietEndOf(s, clock);
  if (quietEnd !== null) {
    return canGoOutAt(s, quietEnd, used.quietMoved + 1)
      ? { kind: 'move', to: quietEnd, reason: EARLY_REASON.quietHours }
      : skip(CLAIM_SKIP_REASON.quietHours);
  }
  if (overFrequencyCap(s, clock, used)) {
    return canGoOutAt(s, clock.nextCapDayAt, null)
      ? { kind: 'move', to: clock.nextCapDayAt, reason: EARLY_REASON.frequencyCap }
      : skip(CLAIM_SKIP_REASON.frequencyCap);
  }
  return chooseChannel(s, clock, used, unfollowed);
}

/**
 * The channel a due message goes out on: a notice while an acceptance of its template is left; a
 * template message, or any message of an account whose window is not checked here, as it is; a
 * customer-service message in the follower's open window while it has allowance; else on its fallback
 * (a notice one needs an acceptance); else skipped `window_closed`. To someone who unfollowed, only the
 * notice (its own or its fallback) goes.
 */
function chooseChannel(s: ClaimSnapshot, clock: PolicyClock, used: Used, unfollowed: boolean): Decision {
  const { message, account } = s;
  if (message.channel === 'notice') {
    return hasAcceptance(s, used)
      ? { kind: 'send', channel: 'notice', as: CLAIMED_AS.unchecked }
      : skip(CLAIM_SKIP_REASON.noSubscription);
  }
  if (!unfollowed) {
    if (message.channel === 'template' || !account.windowChecked)
      return { kind: 'send', channel: message.channel, as: CLAIMED_AS.unchecked };
    if (windowHasRoom(s.follower, clock, used))
      return { kind: 'send', channel: 'custom', as: CLAIMED_AS.window };
  }
  if (message.fallback === 'notice') {
    return hasAcceptance(s, used)
      ? { kind: 'send', channel: 'notice', as: CLAIMED_AS.fallback }
      : skip(CLAIM_SKIP_REASON.noSubscription);
  }
  if (message.fallback === 'template') return { kind: 'send', channel: 'template', as: CLAIMED_AS.fallback };
  return skip(CLAIM_SKIP_REASON.windowClosed);
}
