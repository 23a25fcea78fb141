import { duration } from '../format.js';
import { t } from '../i18n/index.js';
import { stepOutsideWindow } from '../policy/window-rule.js';
import type { InteractionKind, WindowPolicy, WindowRule } from '../types.js';

/** Where a step falls under the account's window policy, worked out in the browser before saving. */
export interface Verdict {
  readonly index: number;
  readonly offsetMs: number;
  /** `late`: at or past the window's end; `count`: beyond the window's message count; null: inside. */
  readonly outside: 'late' | 'count' | null;
  readonly hasFallback: boolean;
  /** What marketing should know about this step, or null when it is simply inside. */
  readonly note: string | null;
}

/** "关注后1分钟内最多可发 3 条" / "a follow allows 3 messages within 1 min" (the API's describeRule). */
export function describeRule(kind: InteractionKind, rule: WindowRule): string {
  const { window, triggers } = t();
  return window.rule(triggers.kind[kind], rule.count, duration(rule.windowMs));
}

/**
 * When a step goes out after its trigger, as the API plans it: its offset, or, for a last-chance step, the
 * trigger's window end less its lead (0 when the policy gives no window: the API refuses that step).
 */
export function plannedOffsetMs(
  step: { readonly offsetMs?: number; readonly beforeWindowCloseMs?: number },
  policy: WindowPolicy,
  kind: InteractionKind | null,
): number {
  if (step.beforeWindowCloseMs === undefined) return step.offsetMs ?? 0;
  const rule = kind ? policy?.[kind] : undefined;
  return rule ? Math.max(0, rule.windowMs - step.beforeWindowCloseMs) : 0;
}

/**
 * The API's rule (src/policy/window-rule.ts): a step is inside its trigger's window before the window ends
 * and within its message count. An outside step without a template fallback is refused on save; with one,
 * it goes out as the template message. `kind` null (an API event or enrollment) opens no window: nothing
 * is refused, and each step's note says what happens to it.
 */
export function checkSteps(
  steps: readonly { offsetMs: number; hasFallback: boolean }[],
  policy: WindowPolicy,
  kind: InteractionKind | null,
): Verdict[] {
  const words = t().window;
  return steps.map(({ offsetMs, hasFallback }, index) => {
    const where = words.at(index + 1, duration(offsetMs));
    if (kind === null) {
      const note = policy ? words.ownWindow(where, hasFallback) : null;
      return { index, offsetMs, outside: null, hasFallback, note };
    }
    const rule = policy?.[kind];
    const outside = stepOutsideWindow(policy, kind, index, offsetMs);
    let note: string | null = null;
    if (rule && outside) {
      const why =
        outside === 'late'
          ? words.late(describeRule(kind, rule))
          : words.count(index + 1, describeRule(kind, rule));
      note = hasFallback ? words.asFallback(where, why) : words.refused(where, why);
    }
    return { index, offsetMs, outside, hasFallback, note };
  });
}
