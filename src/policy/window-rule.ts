/**
 * The customer-service contact window (reference/wechat.md §2.1): an interaction opens one that allows so
 * many messages for so long, by the account's window policy. The save-time checks and the admin page's
 * previews (in the browser, as an ES module) ask this file; only types come from the contract.
 */
import type { InteractionKind, Trigger, WindowRule } from '../contract/index.js';

/** A rule per interaction kind; `null` means "not checked here" (WeChat's 45015 still applies). */
export type WindowPolicy = Readonly<Record<InteractionKind, WindowRule>> | null;

/** A window an interaction opened: until when it is open, and how many messages it allows. */
export interface OpenWindow {
  readonly endsAt: Date;
  readonly allowance: number;
}

/**
 * The interaction a trigger is; null for an `event`, which another system posts, or `api` (enrollments
 * through the API): neither opens a window, so their steps go out only while one the follower opened is
 * still open (no step is refused for it).
 */
export function triggerKind(trigger: Trigger): InteractionKind | null {
  if (trigger.type === 'event' || trigger.type === 'api') return null;
  return trigger.type === 'keyword' ? 'message' : trigger.type;
}

/** The window an interaction of `kind` at `at` opens under `policy`; null when the policy checks none. */
export function windowOpenedBy(policy: WindowPolicy, kind: InteractionKind, at: Date): OpenWindow | null {
  const rule = policy?.[kind];
  return rule ? { endsAt: new Date(at.getTime() + rule.windowMs), allowance: rule.count } : null;
}

/**
 * Why the message numbered `index` (0-based) in `window`, sent at `at`, would not fit it: `late` at or past
 * its end, `count` beyond its allowance; null when it fits.
 */
export function outsideWindow(window: OpenWindow, index: number, at: Date): 'late' | 'count' | null {
  if (at >= window.endsAt) return 'late';
  return index >= window.allowance ? 'count' : null;
}

/**
 * Where step `index` of a sequence, `offsetMs` after its trigger (`kind`), falls in the window the trigger
 * opened: as `outsideWindow`, and null too when no window is checked (kind null, or no rule).
 */
export function stepOutsideWindow(
  policy: WindowPolicy,
  kind: InteractionKind | null,
  index: number,
  offsetMs: number,
): 'late' | 'count' | null {
  const window = kind && windowOpenedBy(policy, kind, new Date(0));
  return window ? outsideWindow(window, index, new Date(offsetMs)) : null;
}

/**
 * Whether a delay of up to `delayMs` (quiet hours holding the step for their whole span, at worst) can push
 * a step that fits its trigger's window out of it.
 */
export function delayCanPushOut(
  policy: WindowPolicy,
  kind: InteractionKind | null,
  index: number,
  offsetMs: number,
  delayMs: number,
): boolean {
  return (
    stepOutsideWindow(policy, kind, index, offsetMs) === null &&
    stepOutsideWindow(policy, kind, index, offsetMs + delayMs) !== null
  );
}
