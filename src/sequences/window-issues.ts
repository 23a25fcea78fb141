import type { IssueDetail } from '../validation';
import { stepOutsideWindow, type WindowPolicy } from '../policy/window-rule';
import { describeRule, formatDuration, type InteractionKind } from '../wechat/window-policy';

/**
 * A step (or one of its variants, at `at`) without a template fallback must fit its trigger's window: sent
 * before the window closes, and within the window's message count.
 */
export function windowIssues(
  policy: WindowPolicy,
  kind: InteractionKind,
  i: number,
  offsetMs: number,
  at: string,
): IssueDetail[] {
  const outside = stepOutsideWindow(policy, kind, i, offsetMs);
  const rule = policy?.[kind];
  if (!outside || !rule) return [];
  const where = `step ${i + 1} at +${formatDuration(offsetMs) || '0 s'}`;
  const message =
    outside === 'late'
      ? `${where} falls outside the contact window: ${describeRule(kind, rule)}. Move it earlier or add a template fallback.`
      : `${where} would be message ${i + 1} in a window where ${describeRule(kind, rule)}. Add a template fallback or drop a step.`;
  return [{ path: at, message }];
}
