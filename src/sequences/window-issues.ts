import type { IssueDetail } from '../validation';
import { type StepWindow, stepWindowFit } from '../policy/journey-plan';
import type { WindowPolicy } from '../policy/window-rule';
import { describeRule, formatDuration } from '../wechat/window-policy';

/**
 * A step (or one of its variants, at `at`) without a template fallback must fit the window its path is
 * planned in: sent before the window closes, and within the window's message count. `label` names the step.
 */
export function windowIssues(
  policy: WindowPolicy,
  window: StepWindow,
  label: string,
  at: string,
): IssueDetail[] {
  const outside = stepWindowFit(policy, window);
  const rule = policy?.[window.kind];
  if (!outside || !rule) return [];
  const message =
    outside === 'late'
      ? `${label} falls outside the contact window: ${describeRule(window.kind, rule)}. Move it earlier or add a template fallback.`
      : `${label} would be message ${window.index + 1} in a window where ${describeRule(window.kind, rule)}. Add a template fallback or drop a step.`;
  const opened = { interaction: window.kind, count: rule.count, windowMs: rule.windowMs };
  const kind = outside === 'late' ? 'window_late' : 'window_full';
  return [{ path: at, message, rule: { kind, ...opened, position: window.index + 1 } }];
}

/**
 * A last-chance step (at `at`, `beforeCloseMs` before the window closes) needs a window to refer to: its
 * path's (null: the trigger is an API call or a posted event, or the path is the yes path of a posted
 * event or a variable — none opens a window), one the account's policy checks, and longer than the lead.
 */
export function lastChanceIssues(
  policy: WindowPolicy,
  window: StepWindow | null,
  beforeCloseMs: number,
  label: string,
  at: string,
): IssueDetail[] {
  const field = `${at}.beforeWindowCloseMs`;
  if (!window)
    return [
      {
        path: field,
        message: `${label} is timed by the end of the contact window, but its path has none to refer to: an API call, a posted event or a variable (the trigger, or the wait this path answers) opens no window`,
        rule: { kind: 'last_chance_no_window' },
      },
    ];
  const rule = policy?.[window.kind];
  if (!rule)
    return [
      {
        path: field,
        message: `${label} is timed by the end of the contact window, but the account's window policy checks none (none): set a policy, or time the step by offsetMs`,
        rule: { kind: 'last_chance_no_policy' },
      },
    ];
  if (rule.windowMs <= beforeCloseMs)
    return [
      {
        path: field,
        message: `${label}: ${describeRule(window.kind, rule)}, so ${formatDuration(beforeCloseMs)} before it closes is before it opens`,
        rule: {
          kind: 'last_chance_too_early',
          interaction: window.kind,
          count: rule.count,
          windowMs: rule.windowMs,
          beforeCloseMs,
        },
      },
    ];
  return [];
}
