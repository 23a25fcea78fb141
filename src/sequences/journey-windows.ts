import type { InteractionKind, Trigger } from '../contract';
import { MAIN_PATH, type WaitCondition } from '../contract/journeys';
import { triggerKind } from '../policy/window-rule';
import { formatDuration } from '../wechat/window-policy';
import {
  type JourneyShape,
  type PathLike,
  pathField,
  type PlacedPath,
  placePaths,
  waitStartMs,
} from './journey-tree';

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

/** A step where the journey places it: its field, a label for messages, its number, and its window. */
export interface PlacedStep<S> {
  readonly step: S;
  /** Its field: `steps.<i>` on the main path, `paths.<name>.steps.<i>` else. */
  readonly at: string;
  /** How messages name it: `step 2 at +1 h`, `step 1 of path replied at +0 s`. */
  readonly label: string;
  /** Its number across the journey (`placePaths` order): results and the message rows carry it. */
  readonly number: number;
  /** Null where no window is known (an `event` or `api` trigger, a yes path on a posted event). */
  readonly window: StepWindow | null;
}

/** Every step of a well-formed journey (`journeyIssues` found nothing), in step-number order. */
export function placeSteps<S extends { readonly offsetMs: number; readonly beforeWindowCloseMs?: number }>(
  trigger: Trigger,
  journey: JourneyShape<{ readonly steps: readonly S[]; readonly wait?: PathLike['wait'] }>,
): PlacedStep<S>[] {
  const placed = placePaths(journey);
  const anchors = windowAnchors(trigger, placed);
  return placed.flatMap(({ name, path, firstStep }) => {
    const anchor = anchors.get(name) ?? null;
    return path.steps.map((step, i) => {
      const before = step.beforeWindowCloseMs;
      const when =
        before === undefined
          ? `at +${formatDuration(step.offsetMs) || '0 s'}`
          : `${formatDuration(before)} before the window closes`;
      return {
        step,
        at: `${pathField(name)}steps.${i}`,
        label: name === MAIN_PATH ? `step ${i + 1} ${when}` : `step ${i + 1} of path ${name} ${when}`,
        number: firstStep + i,
        window: anchor && {
          kind: anchor.kind,
          index: anchor.sent + i,
          sinceMs: anchor.sinceMs + step.offsetMs,
          ...(before === undefined ? {} : { beforeCloseMs: before }),
        },
      };
    });
  });
}
