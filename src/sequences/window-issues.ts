import type { IssueDetail } from '../validation';
import { stepOutsideWindow, type WindowPolicy } from '../policy/window-rule';
import { describeRule } from '../wechat/window-policy';
import type { StepWindow } from './journey-windows';

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
  const outside = stepOutsideWindow(policy, window.kind, window.index, window.sinceMs);
  const rule = policy?.[window.kind];
  if (!outside || !rule) return [];
  const message =
    outside === 'late'
      ? `${label} falls outside the contact window: ${describeRule(window.kind, rule)}. Move it earlier or add a template fallback.`
      : `${label} would be message ${window.index + 1} in a window where ${describeRule(window.kind, rule)}. Add a template fallback or drop a step.`;
  return [{ path: at, message }];
}
