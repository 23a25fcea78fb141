import { duration } from '../format.js';
import { t } from '../i18n/index.js';
import { sentSinceOpenedMs, type StepWindow, stepWindowFit } from '../policy/journey-plan.js';
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

/** A step of one path as the check reads it: its offset, its window (null: none known), its fallback. */
export interface CheckedStep {
  readonly offsetMs: number;
  readonly window: StepWindow | null;
  readonly hasFallback: boolean;
}

/**
 * The API's rule (src/policy/journey-plan.ts, the same module): a step is inside the window its path is
 * planned in before the window ends and within its message count. An outside step without a template
 * fallback is refused on save; with one, it goes out as the template message. A step without a known
 * window (an API event or enrollment, the yes path of a posted event) is never refused, and its note says
 * what happens to it. Each verdict's `offsetMs` is the step's time since its window opened.
 */
export function checkSteps(steps: readonly CheckedStep[], policy: WindowPolicy): Verdict[] {
  const words = t().window;
  return steps.map(({ offsetMs, window, hasFallback }, index) => {
    const at = window ? sentSinceOpenedMs(policy, window) : offsetMs;
    const where = words.at(index + 1, duration(at));
    if (window === null) {
      const note = policy ? words.ownWindow(where, hasFallback) : null;
      return { index, offsetMs: at, outside: null, hasFallback, note };
    }
    const rule = policy?.[window.kind];
    const outside = stepWindowFit(policy, window);
    let note: string | null = null;
    if (rule && outside) {
      const why =
        outside === 'late'
          ? words.late(describeRule(window.kind, rule))
          : words.count(window.index + 1, describeRule(window.kind, rule));
      note = hasFallback ? words.asFallback(where, why) : words.refused(where, why);
    }
    return { index, offsetMs: at, outside, hasFallback, note };
  });
}
