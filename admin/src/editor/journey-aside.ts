import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import { planWindows } from '../policy/journey-plan.js';
import { hasFallback, shownContent } from '../step-content.js';
import type { InteractionKind, SequenceBody, Step, WaitInput, WindowPolicy } from '../types.js';
import { phonePreview, type TemplateLookup } from './phone-preview.js';
import { checkSteps, type Verdict } from './window-check.js';
import { windowTimeline } from './window-timeline.js';

/** One path of the draft as the aside shows it: its steps, their verdicts, and the window they are planned in. */
export interface PathPlan {
  readonly name: string;
  readonly depth: number;
  readonly steps: readonly Step[];
  readonly verdicts: readonly Verdict[];
  readonly kind: InteractionKind | null;
}

/**
 * Every path of the draft, in the order the API numbers their steps, with where each step falls in the
 * window its path is planned in — computed by src/policy/journey-plan.ts, as the API's save-time check.
 */
export function planDraft(body: SequenceBody, policy: WindowPolicy): PathPlan[] {
  const asPath = (p: { steps: Step[]; wait?: WaitInput | null }) => ({
    steps: p.steps,
    ...(p.wait ? { wait: { ...p.wait, no: p.wait.no ?? null } } : {}),
  });
  const paths = Object.fromEntries(Object.entries(body.paths ?? {}).map(([n, p]) => [n, asPath(p as never)]));
  return planWindows(body.trigger, { main: asPath(body), paths }).map(
    ({ name, depth, path, anchor, windows }) => ({
      name,
      depth,
      steps: path.steps,
      kind: anchor?.kind ?? null,
      verdicts: checkSteps(
        path.steps.map((s, i) => ({
          offsetMs: s.offsetMs ?? 0,
          window: windows[i],
          hasFallback: hasFallback(s),
        })),
        policy,
      ),
    }),
  );
}

const pathLabel = (name: string) => (name === 'main' ? t().results.mainPath : name);

/**
 * The aside's path selector (a journey only): one tab per path, each saying how many of its steps go out
 * as customer-service messages and how many need their fallback (or are refused without one).
 */
export function pathTabs(
  plans: readonly PathPlan[],
  selected: string,
  select: (name: string) => void,
): HTMLElement | null {
  if (plans.length < 2) return null;
  const words = t().journey;
  return h(
    'div',
    { class: 'path-tabs', role: 'tablist', 'aria-label': words.pathTabs },
    plans.map((p) => {
      const inside = p.verdicts.filter((v) => !v.outside).length;
      const fallback = p.verdicts.filter((v) => v.outside && v.hasFallback).length;
      const refused = p.verdicts.filter((v) => v.outside && !v.hasFallback).length;
      return h(
        'button',
        {
          type: 'button',
          role: 'tab',
          class: `path-tab${p.name === selected ? ' selected' : ''}${refused ? ' refused' : ''}`,
          'aria-selected': p.name === selected ? 'true' : 'false',
          'data-path-tab': p.name,
          onclick: () => select(p.name),
        },
        h('span', { class: 'path-tab-name' }, '· '.repeat(p.depth), pathLabel(p.name)),
        h(
          'span',
          { class: 'path-tab-counts small' },
          // No window known: each step goes out as a message only while one the follower opened is open.
          p.kind === null ? words.tabNoWindow(p.steps.length) : words.tabCounts(inside, fallback, refused),
        ),
      );
    }),
  );
}

/** The selected path's window timeline and phone preview. */
export function pathPreview(
  plan: PathPlan,
  policy: WindowPolicy,
  policyName: string,
  appId: string,
  lookup: TemplateLookup,
): HTMLElement[] {
  return [
    windowTimeline(plan.verdicts, policy, plan.kind, policyName),
    phonePreview(
      plan.steps.map((s, i) => ({ ...shownContent(s), verdict: plan.verdicts[i] })),
      appId,
      lookup,
    ),
  ];
}
