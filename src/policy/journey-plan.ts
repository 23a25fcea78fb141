/**
 * How a journey's paths are placed in time and in contact windows: the order of its paths (and so its step
 * numbers), when each path's wait starts, which window each path's steps are planned in, and which steps
 * fall outside it. The save-time checks, enrollment planning and the admin page's per-path previews (in
 * the browser, as an ES module) all ask this file; only types come from the contract.
 */
import type { InteractionKind, MAIN_PATH, Trigger, WaitCondition } from '../contract/index.js';
import { stepOutsideWindow, triggerKind, type WindowPolicy } from './window-rule.js';

/** The main path's name (the contract's `MAIN_PATH`: the type says they agree). */
const MAIN: typeof MAIN_PATH = 'main';

/** What the planning needs of a wait: when it starts, what it watches for, how long, and where it leads. */
export interface WaitLike {
  readonly afterMs?: number;
  readonly until: WaitCondition;
  readonly timeoutMs: number;
  readonly yes: string;
  readonly no: string | null;
}

/** What the structure needs of a path: its steps' offsets, and the wait that ends it. */
export interface PathLike {
  readonly steps: readonly { readonly offsetMs: number; readonly beforeWindowCloseMs?: number }[];
  readonly wait?: WaitLike;
}

/** A journey's paths: the main one (the sequence's `steps` and `wait`) and the named ones. */
export interface JourneyShape<P extends PathLike = PathLike> {
  readonly main: P;
  readonly paths: Readonly<Record<string, P>>;
}

/** A sequence's journey (its `steps`, `wait` and `paths`) as the tree functions read it. */
export function journeyShape<P extends PathLike>(j: {
  readonly steps: P['steps'];
  readonly wait: WaitLike | null;
  readonly paths: Readonly<Record<string, P>>;
}): JourneyShape<{ readonly steps: P['steps']; readonly wait?: WaitLike } | P> {
  return { main: { steps: j.steps, ...(j.wait ? { wait: j.wait } : {}) }, paths: j.paths };
}

/** How a path is reached: from which path's wait, on which branch. */
export interface PathEntry {
  readonly from: string;
  readonly branch: 'yes' | 'no';
}

/** A path where the journey reaches it, in step-number order (the main path first, then each wait's yes, then its no). */
export interface PlacedPath<P extends PathLike = PathLike> {
  readonly name: string;
  readonly path: P;
  /** Its first step's number: steps are numbered across the journey, in this order. */
  readonly firstStep: number;
  /** How many waits come before it. */
  readonly depth: number;
  readonly entry: PathEntry | null;
}

/** Where a path's fields are in the request: `steps`/`wait` for the main path, `paths.<name>.` else. */
export function pathField(name: string): string {
  return name === MAIN ? '' : `paths.${name}.`;
}

/** When a path's wait starts watching, after the path's start: its `afterMs`, or its last step's offset. */
export function waitStartMs(path: PathLike): number {
  return path.wait?.afterMs ?? path.steps.at(-1)?.offsetMs ?? 0;
}

/**
 * The paths in step-number order: the main path, then, depth first, each wait's yes path before its no
 * path. A wait naming a path not declared, or one already placed (a loop, a second way in), is not
 * followed: the server refuses such a journey (`journeyIssues`), the editor previews what it can.
 */
export function placePaths<P extends PathLike>(journey: JourneyShape<P>): PlacedPath<P>[] {
  const placed: PlacedPath<P>[] = [];
  const seen = new Set<string>();
  let next = 0;
  const visit = (name: string, path: P, depth: number, entry: PathEntry | null): void => {
    seen.add(name);
    placed.push({ name, path, firstStep: next, depth, entry });
    next += path.steps.length;
    for (const branch of ['yes', 'no'] as const) {
      const target = path.wait?.[branch];
      if (target && Object.hasOwn(journey.paths, target) && !seen.has(target))
        visit(target, journey.paths[target], depth + 1, { from: name, branch });
    }
  };
  visit(MAIN, journey.main, 0, null);
  return placed;
}

/**
 * The contact window a path's steps are planned in, where the journey can know it: the interaction that
 * opened it, how long before the path's start it did, and how many steps went out in it before the path.
 */
export interface WindowAnchor {
  readonly kind: InteractionKind;
  readonly sinceMs: number;
  readonly sent: number;
}

/** The interaction a wait's condition is, which opens a fresh window; null for a posted event or a variable (none). */
export function conditionKind(condition: WaitCondition): InteractionKind | null {
  return condition.type === 'event' || condition.type === 'var' ? null : condition.type;
}

/**
 * Each path's window anchor, by name: the main path's is its trigger's (none for `event` and `api`); a yes
 * path whose condition is an interaction starts a fresh window (the reply opened it), one on a posted event
 * has none known; a no path continues its parent's window, at the wait's timeout, after the parent's steps.
 * Paths in `placePaths` order (a parent before its children).
 */
export function windowAnchors(
  trigger: Trigger,
  placed: readonly PlacedPath[],
): Map<string, WindowAnchor | null> {
  const anchors = new Map<string, WindowAnchor | null>();
  const byName = new Map<string, PathLike>(placed.map((p) => [p.name, p.path]));
  for (const { name, entry } of placed) {
    if (entry === null) {
      const kind = triggerKind(trigger);
      anchors.set(name, kind ? { kind, sinceMs: 0, sent: 0 } : null);
      continue;
    }
    const parent = byName.get(entry.from)!;
    const wait = parent.wait!;
    if (entry.branch === 'yes') {
      const kind = conditionKind(wait.until);
      anchors.set(name, kind ? { kind, sinceMs: 0, sent: 0 } : null);
      continue;
    }
    const before = anchors.get(entry.from) ?? null;
    anchors.set(
      name,
      before && {
        kind: before.kind,
        sinceMs: before.sinceMs + waitStartMs(parent) + wait.timeoutMs,
        sent: before.sent + parent.steps.length,
      },
    );
  }
  return anchors;
}

/** Where a step falls in the contact window its path is planned in: the message number and the time since it opened. */
export interface StepWindow {
  readonly kind: InteractionKind;
  readonly index: number;
  /** Since the window opened: the step's time, or, for a last-chance step, its path's start. */
  readonly sinceMs: number;
  /** A last-chance step: how long before the window closes it goes out (the window's rule says when). */
  readonly beforeCloseMs?: number;
}

/** Step `i` of a path whose window is `anchor` (null: none known), in that window. */
export function stepWindow(
  anchor: WindowAnchor | null,
  i: number,
  step: { readonly offsetMs: number; readonly beforeWindowCloseMs?: number },
): StepWindow | null {
  const before = step.beforeWindowCloseMs;
  return (
    anchor && {
      kind: anchor.kind,
      index: anchor.sent + i,
      sinceMs: anchor.sinceMs + step.offsetMs,
      ...(before === undefined ? {} : { beforeCloseMs: before }),
    }
  );
}

/** A path where the journey places it, with its window anchor and each of its steps' windows. */
export interface PlannedPathWindows<P extends PathLike> extends PlacedPath<P> {
  readonly anchor: WindowAnchor | null;
  readonly windows: readonly (StepWindow | null)[];
}

/** Every path of a journey in `placePaths` order, each with its window anchor and its steps' windows. */
export function planWindows<P extends PathLike>(
  trigger: Trigger,
  journey: JourneyShape<P>,
): PlannedPathWindows<P>[] {
  const placed = placePaths(journey);
  const anchors = windowAnchors(trigger, placed);
  return placed.map((p) => {
    const anchor = anchors.get(p.name) ?? null;
    return { ...p, anchor, windows: p.path.steps.map((step, i) => stepWindow(anchor, i, step)) };
  });
}

/** When a step goes out, since its window opened: a last-chance step's is the window's end less its lead. */
export function sentSinceOpenedMs(policy: WindowPolicy, window: StepWindow): number {
  const rule = policy?.[window.kind];
  if (window.beforeCloseMs === undefined || !rule) return window.sinceMs;
  return Math.max(window.sinceMs, rule.windowMs - window.beforeCloseMs);
}

/**
 * Why a step would not go out as a customer-service message in its window: `late` at or past its end,
 * `count` beyond its allowance; null when it fits, or when no window is checked.
 */
export function stepWindowFit(policy: WindowPolicy, window: StepWindow): 'late' | 'count' | null {
  return stepOutsideWindow(policy, window.kind, window.index, sentSinceOpenedMs(policy, window));
}
