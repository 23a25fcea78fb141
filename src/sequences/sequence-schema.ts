import { missingPermissionMessage, type PermissionChannel } from '../accounts/permissions';
import { ValidationError } from '../errors';
import {
  type ExitCondition,
  sequenceDefinitionSchema,
  type SequenceQuietHours,
  type Goal,
  type Trigger,
  type Wait,
} from '../contract';
import { journeyIssues } from './journey-tree';
import { journeyShape, type StepWindow } from '../policy/journey-plan';
import { placeSteps } from './journey-windows';
import { exitReason } from './exits';
import { type IssueDetail, parseInput } from '../validation';
import { placeholdersOf, urlVariableIssues } from './template-vars';
import { lastChanceIssues, windowIssues } from './window-issues';
import {
  isNoticeFallback,
  parseCustomMessage,
  parseStepFallback,
  type CustomMessage,
  type StepFallback,
} from '../wechat/message-schema';
import type { WindowPolicy } from '../policy/window-rule';

/** One variant of an A/B step: enrollments get it in proportion to its weight. */
export interface Variant {
  readonly name: string;
  readonly weight: number;
  readonly message: CustomMessage;
  readonly fallback: StepFallback | null;
}

export interface Step {
  /** Wait after its path starts (the trigger, for the main path), in ms; 0 for a last-chance step. */
  readonly offsetMs: number;
  /**
   * A last-chance step: sent this long before the follower's contact window closes (the window its path
   * starts in; each new interaction moves it to the new window's end).
   */
  readonly beforeWindowCloseMs?: number;
  /** The step's message, or none when it has variants. */
  readonly message?: CustomMessage;
  /**
   * Sent instead when the contact window is closed at due time: a template message, or a subscription
   * notice (`"channel": "notice"`) that goes out only if the follower accepted its template.
   */
  readonly fallback?: StepFallback | null;
  /** An A/B step's variants: each enrollment gets one (stable per follower and step). */
  readonly variants?: Variant[];
  /** Skip the step rather than send it this much later than due (after an outage). */
  readonly maxLatenessMs?: number;
}

/** A named path: its steps (offsets from when it starts), and the wait that may end it. */
export interface JourneyPath {
  readonly steps: readonly Step[];
  readonly wait?: Wait;
}

export interface SequenceDefinition {
  readonly appId: string;
  readonly name: string;
  readonly trigger: Trigger;
  /** The main path's steps. */
  readonly steps: readonly Step[];
  /** The wait that ends the main path, or null: a straight sequence. */
  readonly wait: Wait | null;
  /** The paths the waits lead to, by name. */
  readonly paths: Readonly<Record<string, JourneyPath>>;
  /** Its conversion goal, or null. */
  readonly goal: Goal | null;
  /** Enroll a follower at most once ever, rather than once per trigger event. */
  readonly oncePerFollower: boolean;
  /** What ends a follower's enrollment early (the rest of its steps cancelled). */
  readonly exits: readonly ExitCondition[];
  /** Its own quiet hours, `false` for none; undefined: the account's default. */
  readonly quietHours?: SequenceQuietHours;
}

/** A detail for each exit condition that repeats an earlier one (keywords compared as they match). */
function duplicateExits(exits: readonly ExitCondition[]): IssueDetail[] {
  const seen = new Map<string, number>();
  return exits.flatMap((condition, i) => {
    const reason = exitReason(condition);
    const first = seen.get(reason);
    if (first === undefined) {
      seen.set(reason, i);
      return [];
    }
    return [
      {
        path: `exits.${i}`,
        message: `repeats exits.${first} (${reason})`,
        rule: { kind: 'repeats', index: first },
      },
    ];
  });
}

/** A goal that is also an exit condition could never be counted as reached and left both: refused. */
function goalIssues(goal: Goal, exits: readonly ExitCondition[]): IssueDetail[] {
  const reason = exitReason(goal.until);
  const same = exits.findIndex((condition) => exitReason(condition) === reason);
  return same < 0
    ? []
    : [
        {
          path: 'goal.until',
          message: `is also exits.${same} (${reason}): to end the journey when the goal is reached, set "exit": true on the goal`,
          rule: { kind: 'goal_is_exit', index: same },
        },
      ];
}

/** A detail for each variant of a step whose name repeats an earlier one's. */
function duplicateVariantNames(variants: readonly { name: string }[], at: string): IssueDetail[] {
  return variants.flatMap((v, j) => {
    const first = variants.findIndex((w) => w.name === v.name);
    return first < j
      ? [
          {
            path: `${at}.variants.${j}.name`,
            message: `repeats the name of variants.${first} (${v.name})`,
            rule: { kind: 'repeats', index: first },
          },
        ]
      : [];
  });
}

/**
 * A push carries no variables: in a sequence a push starts, every `{{name}}` needs a default
 * (`{{name|默认值}}`). Only an `api` sequence may have variables its enrollments must give.
 */
function placeholderIssues(trigger: Trigger, payload: unknown, path: string): IssueDetail[] {
  if (trigger.type === 'api') return [];
  return placeholdersOf(payload)
    .filter((p) => !p.hasDefault)
    .map((p) => ({
      path,
      message: `{{${p.name}}} has no default, and the sequence's trigger (${trigger.type}) gives no variables: write {{${p.name}|默认值}}, or start the sequence through the API (trigger api)`,
      rule: { kind: 'variable_without_default', name: p.name },
    }));
}

/**
 * Parses a sequence definition, validating the journey's structure (`journeyIssues`: a tree of paths,
 * each reached once, no loop, a depth limit), every step's message and fallback, the step order, and that
 * each step can be delivered under the account's window policy: a step past the window its path is planned
 * in (the trigger's; a reply's fresh one on a wait's yes path; the trigger's, at the timeout, on a no path),
 * or beyond the window's message count, is refused unless it has a template fallback — with a message that
 * names the step and says why. An `event` trigger opens no window, so its steps are not checked: each
 * goes out if a window the follower opened is open at due time, else on its fallback, else is skipped.
 * An exit condition that repeats another is refused. The structure is checked first: steps are checked
 * once it holds. A last-chance step needs a window to refer to (`lastChanceIssues`), whatever its
 * fallback. `policyOf` returns the policy of a configured
 * account, `undefined` else; `missingOf` the channels a platform account's permissions do not allow (a
 * step using one is refused).
 */
export function parseSequenceDefinition(
  input: unknown,
  policyOf: (appId: string) => WindowPolicy | undefined,
  missingOf: (appId: string) => readonly PermissionChannel[] = () => [],
): SequenceDefinition {
  const d = parseInput(sequenceDefinitionSchema, input, 'invalid sequence');
  const details: IssueDetail[] = [];
  const policy = policyOf(d.appId);
  const missing = missingOf(d.appId);
  if (policy === undefined)
    details.push({
      path: 'appId',
      message: `no account ${d.appId} is configured`,
      rule: { kind: 'unknown_account' },
    });
  details.push(...duplicateExits(d.exits));
  if (d.goal) details.push(...goalIssues(d.goal, d.exits));
  const journey = journeyShape({ steps: d.steps, wait: d.wait ?? null, paths: d.paths });
  if (d.steps.length === 0 && !d.wait)
    details.push({
      path: 'steps',
      message: 'a sequence needs at least one step (or a wait)',
      rule: { kind: 'no_steps' },
    });
  details.push(...journeyIssues(journey));
  if (details.length > 0) throw new ValidationError('invalid sequence', details);

  const collect = <T>(at: string, fn: () => T): T | null => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      details.push(...((err.details as IssueDetail[] | undefined) ?? [{ path: at, message: err.message }]));
      return null;
    }
  };
  /** A message and fallback (a step's or a variant's at `at`), checked like every step's; null if refused. */
  const parseContent = (
    content: { message?: Record<string, unknown>; fallback?: Record<string, unknown> | null },
    at: string,
    label: string,
    window: StepWindow | null,
  ): { message: CustomMessage; fallback: StepFallback | null } | null => {
    const message = collect(at, () => parseCustomMessage(content.message, `${at}.message`));
    const fallback = content.fallback
      ? collect(at, () => parseStepFallback(content.fallback, `${at}.fallback`))
      : null;
    // A platform account authorizes channels one by one: a step it could never send is refused now.
    if (missing.includes('custom'))
      details.push({
        path: `${at}.message`,
        message: missingPermissionMessage('custom'),
        rule: { kind: 'missing_permission', channel: 'custom' },
      });
    if (fallback && !isNoticeFallback(fallback) && missing.includes('template')) {
      details.push({
        path: `${at}.fallback`,
        message: missingPermissionMessage('template'),
        rule: { kind: 'missing_permission', channel: 'template' },
      });
    }
    details.push(...placeholderIssues(d.trigger, content.message, `${at}.message`));
    details.push(...urlVariableIssues(content.message, `${at}.message`));
    if (content.fallback) {
      details.push(...placeholderIssues(d.trigger, content.fallback, `${at}.fallback`));
      details.push(...urlVariableIssues(content.fallback, `${at}.fallback`));
    }
    if (window && !fallback) details.push(...windowIssues(policy ?? null, window, label, at));
    return message ? { message, fallback } : null;
  };

  const parsed = new Map<string, Step>();
  for (const { step: s, at, label, window } of placeSteps(d.trigger, journey)) {
    const timing = {
      offsetMs: s.offsetMs,
      ...(s.beforeWindowCloseMs === undefined ? {} : { beforeWindowCloseMs: s.beforeWindowCloseMs }),
      ...(s.maxLatenessMs ? { maxLatenessMs: s.maxLatenessMs } : {}),
    };
    if (s.beforeWindowCloseMs !== undefined)
      details.push(...lastChanceIssues(policy ?? null, window, s.beforeWindowCloseMs, label, at));
    if (s.variants) {
      details.push(...duplicateVariantNames(s.variants, at));
      const variants = s.variants.flatMap((v, j) => {
        const content = parseContent(v, `${at}.variants.${j}`, label, window);
        return content ? [{ name: v.name, weight: v.weight, ...content }] : [];
      });
      parsed.set(at, { ...timing, variants });
      continue;
    }
    const content = parseContent(s, at, label, window);
    if (content) parsed.set(at, { ...timing, ...content });
  }
  if (details.length > 0) throw new ValidationError('invalid sequence', details);
  return {
    appId: d.appId,
    name: d.name,
    trigger: d.trigger,
    steps: d.steps.map((_, i) => parsed.get(`steps.${i}`)!),
    wait: d.wait ?? null,
    goal: d.goal ?? null,
    paths: Object.fromEntries(
      Object.entries(d.paths).map(([name, path]) => [
        name,
        {
          steps: path.steps.map((_, i) => parsed.get(`paths.${name}.steps.${i}`)!),
          ...(path.wait ? { wait: path.wait } : {}),
        },
      ]),
    ),
    oncePerFollower: d.oncePerFollower,
    exits: d.exits,
    ...(d.quietHours === undefined ? {} : { quietHours: d.quietHours }),
  };
}
