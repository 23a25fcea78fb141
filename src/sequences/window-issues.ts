import type { IssueDetail } from '../validation';
import { describeRule, formatDuration, type InteractionKind, type WindowRule } from '../wechat/window-policy';

/**
 * A step (or one of its variants, at `at`) without a template fallback must fit its trigger's window: sent
 * before the window closes, and within the window's message count.
 */
export function windowIssues(
  rule: WindowRule,
  kind: InteractionKind,
  i: number,
  offsetMs: number,
  at: string,
): IssueDetail[] {
  const where = `step ${i + 1} at +${formatDuration(offsetMs) || '0 s'}`;
  if (offsetMs >= rule.windowMs) {
    return [
      {
        path: at,
        message: `${where} falls outside the contact window: ${describeRule(kind, rule)}. Move it earlier or add a template fallback.`,
      },
    ];
  }
  if (i >= rule.count) {
    return [
      {
        path: at,
        message: `${where} would be message ${i + 1} in a window where ${describeRule(kind, rule)}. Add a template fallback or drop a step.`,
      },
    ];
  }
  return [];
}
