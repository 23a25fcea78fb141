import { MAIN_PATH, type Wait } from '../contract';
import type { IssueDetail } from '../validation';
import { newMessageId } from '../store/message-id';
import type { NewWait } from '../store/journey-waits';
import type { NewLastChance } from '../store/last-chance-steps';
import type { NewMessage } from '../store/message-store';
import type { StoredPath } from '../store/sequence-store';
import { chooseVariant } from './choose-variant';
import { journeyShape, placePaths, waitStartMs } from '../policy/journey-plan';
import { type RenderedStep, renderStep } from './render-step';

/** A version's journey: the main path's steps and wait, and the named paths. */
export interface Journey {
  readonly steps: StoredPath['steps'];
  readonly wait: Wait | null;
  readonly paths: Readonly<Record<string, StoredPath>>;
}

/** An enrollment whose path starts now: who, in which sequence and version, which path, from when. */
export interface PathStart {
  readonly enrollmentId: string;
  readonly appId: string;
  readonly openid: string;
  readonly sequenceId: string;
  readonly version: number;
  readonly path: string;
  /** The path's start: the enrollment, the action that met the wait, or the wait's deadline. */
  readonly at: Date;
  readonly requestId: string | null;
  /** The enrollment's variables (`{}` for one a push started). */
  readonly vars: Readonly<Record<string, string>>;
  /**
   * When the follower's current contact window closes (null: none recorded): a path with last-chance
   * steps needs it (`hasLastChance`), a path without ignores it.
   */
  readonly windowEndsAt?: Date | null;
}

/** What a path's start plans: its messages, the wait that ends it, and which of the messages are last-chance steps. */
export interface PlannedPath {
  readonly messages: NewMessage[];
  readonly wait: NewWait | null;
  readonly lastChances: NewLastChance[];
}

/**
 * Every step of the journey, on every path, as one follower gets it (their A/B variant) with their
 * variables filled in, by step number. With `issues`, a variable with neither value nor default, or a
 * rendered message over WeChat's limits, is pushed there: the API's enrollment checks the paths it may
 * take later now, while there is a request to refuse.
 */
export function renderJourney(
  journey: Journey,
  follower: { readonly sequenceId: string; readonly openid: string },
  vars: Readonly<Record<string, string>>,
  issues: IssueDetail[] | null,
): RenderedStep[] {
  return placePaths(journeyShape(journey)).flatMap(({ path, firstStep }) =>
    path.steps.map((step, i) =>
      renderStep(
        chooseVariant(step, {
          sequenceId: follower.sequenceId,
          stepIndex: firstStep + i,
          openid: follower.openid,
        }),
        firstStep + i,
        vars,
        issues,
      ),
    ),
  );
}

/** Whether path `name` of the journey has a last-chance step (its start then needs the follower's window). */
export function hasLastChance(journey: Journey, name: string): boolean {
  const path = name === MAIN_PATH ? journey : journey.paths[name];
  return path?.steps.some((step) => step.beforeWindowCloseMs !== undefined) ?? false;
}

/**
 * When a last-chance step is due: `beforeCloseMs` before the window closes, but not before `from` (its
 * path's start, or the interaction that moved it); at `from` when no window is recorded — the send policy
 * then skips it, or sends its fallback.
 */
export function lastChanceDue(from: Date, windowEndsAt: Date | null, beforeCloseMs: number): Date {
  if (!windowEndsAt) return from;
  return new Date(Math.max(from.getTime(), windowEndsAt.getTime() - beforeCloseMs));
}

/**
 * What a path's start schedules: each of its steps due at the start plus its offset — a last-chance step
 * `beforeWindowCloseMs` before the follower's current window closes (`lastChanceDue`) — numbered across the
 * journey, taken from `rendered`, by number, else rendered with the enrollment's variables (a variable
 * with neither value nor default stays as written); the wait that ends it, watching from its start until
 * its timeout; and its last-chance steps, which later interactions move.
 */
export function planPath(
  journey: Journey,
  start: PathStart,
  rendered?: readonly RenderedStep[],
): PlannedPath {
  const placed = placePaths(journeyShape(journey)).find((p) => p.name === start.path);
  if (!placed) throw new Error(`sequence ${start.sequenceId} v${start.version} has no path ${start.path}`);
  const { path, firstStep } = placed;
  const lastChances: NewLastChance[] = [];
  const messages = path.steps.map((step, i): NewMessage => {
    const number = firstStep + i;
    const content =
      rendered?.[number] ??
      renderStep(
        chooseVariant(step, { sequenceId: start.sequenceId, stepIndex: number, openid: start.openid }),
        number,
        start.vars,
        null,
      );
    const before = step.beforeWindowCloseMs;
    const dueAt =
      before === undefined
        ? new Date(start.at.getTime() + step.offsetMs)
        : lastChanceDue(start.at, start.windowEndsAt ?? null, before);
    const id = newMessageId(dueAt);
    if (before !== undefined)
      lastChances.push({
        enrollmentId: start.enrollmentId,
        stepIndex: number,
        appId: start.appId,
        openid: start.openid,
        sequenceId: start.sequenceId,
        version: start.version,
        variant: content.variant,
        beforeCloseMs: before,
        messageId: id,
        dueAt,
        payload: content.message,
        fallback: content.fallback,
        fallbackChannel: content.fallback ? content.fallbackChannel : null,
        maxLatenessMs: step.maxLatenessMs ?? null,
      });
    return {
      id,
      appId: start.appId,
      openid: start.openid,
      channel: 'custom',
      payload: content.message,
      dueAt,
      idempotencyKey: null,
      requestHash: null,
      cancelKey: null,
      maxLatenessMs: step.maxLatenessMs ?? null,
      frequencyCapped: true,
      requestId: start.requestId,
      fallback: content.fallback,
      fallbackChannel: content.fallbackChannel,
      step: {
        sequenceId: start.sequenceId,
        enrollmentId: start.enrollmentId,
        index: number,
        variant: content.variant,
      },
    };
  });
  if (!path.wait) return { messages, wait: null, lastChances };
  const startsAt = new Date(start.at.getTime() + waitStartMs(path));
  return {
    messages,
    lastChances,
    wait: {
      enrollmentId: start.enrollmentId,
      appId: start.appId,
      openid: start.openid,
      sequenceId: start.sequenceId,
      version: start.version,
      path: start.path,
      condition: path.wait.until,
      startsAt,
      deadline: new Date(startsAt.getTime() + path.wait.timeoutMs),
    },
  };
}

/** The path a resolved wait of `path` leads to on `branch`, or null when the journey ends there. */
export function nextPath(journey: Journey, path: string, branch: 'yes' | 'no'): string | null {
  const wait = path === MAIN_PATH ? journey.wait : (journey.paths[path]?.wait ?? null);
  return wait?.[branch] ?? null;
}

/** Every step of the journey by its number (the main path's first, then `placePaths` order). */
export function journeySteps(journey: Journey): StoredPath['steps'][number][] {
  return placePaths(journeyShape(journey)).flatMap(({ path }) => [...path.steps]);
}
