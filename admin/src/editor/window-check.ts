import { KIND_LABEL } from '../describe.js';
import { duration, plural } from '../format.js';
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

/** "a follow allows 3 messages within 1 min" — the API's wording (describeRule). */
export function describeRule(kind: InteractionKind, rule: WindowRule): string {
  return `${KIND_LABEL[kind]} allows ${plural(rule.count, 'message')} within ${duration(rule.windowMs)}`;
}

/**
 * The same rule as the API's: step i is inside iff offsetMs < windowMs and i < count. An outside step
 * without a template fallback is refused on save; with one, it goes out as the template message. `kind`
 * null (an API event) opens no window: nothing is refused, and each step's note says what happens to it.
 */
export function checkSteps(
  steps: readonly { offsetMs: number; hasFallback: boolean }[],
  policy: WindowPolicy,
  kind: InteractionKind | null,
): Verdict[] {
  return steps.map(({ offsetMs, hasFallback }, index) => {
    const where = `Step ${index + 1} at +${offsetMs === 0 ? '0 s' : duration(offsetMs)}`;
    if (kind === null) {
      const note = policy
        ? `${where} goes out only if the follower's own contact window is open then; otherwise ${hasFallback ? 'as its template fallback' : 'it is skipped'}.`
        : null;
      return { index, offsetMs, outside: null, hasFallback, note };
    }
    const rule = policy?.[kind];
    const outside = !rule ? null : offsetMs >= rule.windowMs ? 'late' : index >= rule.count ? 'count' : null;
    let note: string | null = null;
    if (rule && outside) {
      const why =
        outside === 'late'
          ? `falls outside the contact window (${describeRule(kind, rule)})`
          : `would be message ${index + 1} where ${describeRule(kind, rule)}`;
      note = hasFallback
        ? `${where} ${why}: it will go out as its template fallback.`
        : `${where} ${why}. It cannot be delivered: move it earlier or add a template fallback.`;
    }
    return { index, offsetMs, outside, hasFallback, note };
  });
}
