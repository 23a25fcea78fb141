import { missingPermissionMessage, type PermissionChannel } from '../accounts/permissions';
import { ValidationError } from '../errors';
import {
  type ExitCondition,
  sequenceDefinitionSchema,
  type SequenceQuietHours,
  type Trigger,
} from '../contract';
import { exitReason } from './exits';
import { type IssueDetail, parseInput } from '../validation';
import { placeholdersOf, urlVariableIssues } from './template-vars';
import { windowIssues } from './window-issues';
import {
  isNoticeFallback,
  parseCustomMessage,
  parseStepFallback,
  type CustomMessage,
  type StepFallback,
} from '../wechat/message-schema';
import { triggerKind, type WindowPolicy } from '../policy/window-rule';

/** One variant of an A/B step: enrollments get it in proportion to its weight. */
export interface Variant {
  readonly name: string;
  readonly weight: number;
  readonly message: CustomMessage;
  readonly fallback: StepFallback | null;
}

export interface Step {
  /** Wait after the trigger, in ms. */
  readonly offsetMs: number;
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

export interface SequenceDefinition {
  readonly appId: string;
  readonly name: string;
  readonly trigger: Trigger;
  readonly steps: readonly Step[];
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
    return [{ path: `exits.${i}`, message: `repeats exits.${first} (${reason})` }];
  });
}

/** A detail for each variant of a step whose name repeats an earlier one's. */
function duplicateVariantNames(variants: readonly { name: string }[], at: string): IssueDetail[] {
  return variants.flatMap((v, j) => {
    const first = variants.findIndex((w) => w.name === v.name);
    return first < j
      ? [{ path: `${at}.variants.${j}.name`, message: `repeats the name of variants.${first} (${v.name})` }]
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
    }));
}

/**
 * Parses a sequence definition, validating every step's message and fallback, the step order, and that
 * each step can be delivered under the account's window policy: a step past its trigger's window, or
 * beyond the window's message count, is refused unless it has a template fallback — with a message that
 * names the step and says why. An `event` trigger opens no window, so its steps are not checked: each
 * goes out if a window the follower opened is open at due time, else on its fallback, else is skipped.
 * An exit condition that repeats another is refused. `policyOf` returns the policy of a configured
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
  if (policy === undefined) details.push({ path: 'appId', message: `no account ${d.appId} is configured` });
  details.push(...duplicateExits(d.exits));
  const kind = triggerKind(d.trigger);

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
    i: number,
    offsetMs: number,
  ): { message: CustomMessage; fallback: StepFallback | null } | null => {
    const message = collect(at, () => parseCustomMessage(content.message, `${at}.message`));
    const fallback = content.fallback
      ? collect(at, () => parseStepFallback(content.fallback, `${at}.fallback`))
      : null;
    // A platform account authorizes channels one by one: a step it could never send is refused now.
    if (missing.includes('custom'))
      details.push({ path: `${at}.message`, message: missingPermissionMessage('custom') });
    if (fallback && !isNoticeFallback(fallback) && missing.includes('template')) {
      details.push({ path: `${at}.fallback`, message: missingPermissionMessage('template') });
    }
    details.push(...placeholderIssues(d.trigger, content.message, `${at}.message`));
    details.push(...urlVariableIssues(content.message, `${at}.message`));
    if (content.fallback) {
      details.push(...placeholderIssues(d.trigger, content.fallback, `${at}.fallback`));
      details.push(...urlVariableIssues(content.fallback, `${at}.fallback`));
    }
    if (kind && !fallback) details.push(...windowIssues(policy ?? null, kind, i, offsetMs, at));
    return message ? { message, fallback } : null;
  };

  const steps: Step[] = [];
  d.steps.forEach((s, i) => {
    const at = `steps.${i}`;
    if (i > 0 && s.offsetMs < d.steps[i - 1].offsetMs) {
      details.push({
        path: `${at}.offsetMs`,
        message: 'steps must be in order: this one is earlier than the step before',
      });
    }
    const timing = { offsetMs: s.offsetMs, ...(s.maxLatenessMs ? { maxLatenessMs: s.maxLatenessMs } : {}) };
    if (s.variants) {
      details.push(...duplicateVariantNames(s.variants, at));
      const variants = s.variants.flatMap((v, j) => {
        const content = parseContent(v, `${at}.variants.${j}`, i, s.offsetMs);
        return content ? [{ name: v.name, weight: v.weight, ...content }] : [];
      });
      steps.push({ ...timing, variants });
      return;
    }
    const content = parseContent(s, at, i, s.offsetMs);
    if (content) steps.push({ ...timing, ...content });
  });
  if (details.length > 0) throw new ValidationError('invalid sequence', details);
  return {
    appId: d.appId,
    name: d.name,
    trigger: d.trigger,
    steps,
    oncePerFollower: d.oncePerFollower,
    exits: d.exits,
    ...(d.quietHours === undefined ? {} : { quietHours: d.quietHours }),
  };
}
