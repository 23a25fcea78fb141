import { missingPermissionMessage, type PermissionChannel } from '../accounts/permissions';
import { ValidationError } from '../errors';
import { type ExitCondition, sequenceDefinitionSchema, type Trigger } from '../contract';
import { exitReason } from './exits';
import { type IssueDetail, readableIssue, zodIssueDetails } from '../validation';
import { placeholdersOf } from './template-vars';
import {
  isNoticeFallback,
  parseCustomMessage,
  parseStepFallback,
  type CustomMessage,
  type StepFallback,
} from '../wechat/message-schema';
import {
  describeRule,
  formatDuration,
  type InteractionKind,
  type WindowPolicy,
} from '../wechat/window-policy';

export interface Step {
  /** Wait after the trigger, in ms. */
  readonly offsetMs: number;
  readonly message: CustomMessage;
  /**
   * Sent instead when the contact window is closed at due time: a template message, or a subscription
   * notice (`"channel": "notice"`) that goes out only if the follower accepted its template.
   */
  readonly fallback: StepFallback | null;
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
}

/**
 * The interaction a trigger is, for the contact-window rules; null for an `event`, which another system
 * posts, or `api` (enrollments through the API): neither opens a window, so their steps go out only while
 * one the follower opened is still open (no step is refused for it).
 */
export function triggerKind(trigger: Trigger): InteractionKind | null {
  if (trigger.type === 'event' || trigger.type === 'api') return null;
  return trigger.type === 'keyword' ? 'message' : trigger.type;
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
  const parsed = sequenceDefinitionSchema.safeParse(input, { error: readableIssue });
  if (!parsed.success) throw new ValidationError('invalid sequence', zodIssueDetails(parsed.error, ''));
  const d = parsed.data;
  const details: IssueDetail[] = [];
  const policy = policyOf(d.appId);
  const missing = missingOf(d.appId);
  if (policy === undefined) details.push({ path: 'appId', message: `no account ${d.appId} is configured` });
  details.push(...duplicateExits(d.exits));
  const kind = triggerKind(d.trigger);

  const steps: Step[] = [];
  d.steps.forEach((s, i) => {
    const at = `steps.${i}`;
    const collect = <T>(fn: () => T): T | null => {
      try {
        return fn();
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        details.push(...((err.details as IssueDetail[] | undefined) ?? [{ path: at, message: err.message }]));
        return null;
      }
    };
    const message = collect(() => parseCustomMessage(s.message, `${at}.message`));
    const fallback = s.fallback ? collect(() => parseStepFallback(s.fallback, `${at}.fallback`)) : null;
    // A platform account authorizes channels one by one: a step it could never send is refused now.
    if (missing.includes('custom'))
      details.push({ path: `${at}.message`, message: missingPermissionMessage('custom') });
    if (fallback && !isNoticeFallback(fallback) && missing.includes('template')) {
      details.push({ path: `${at}.fallback`, message: missingPermissionMessage('template') });
    }
    if (i > 0 && s.offsetMs < d.steps[i - 1].offsetMs) {
      details.push({
        path: `${at}.offsetMs`,
        message: 'steps must be in order: this one is earlier than the step before',
      });
    }
    details.push(...placeholderIssues(d.trigger, s.message, `${at}.message`));
    if (s.fallback) details.push(...placeholderIssues(d.trigger, s.fallback, `${at}.fallback`));
    if (policy && kind && !fallback) {
      const rule = policy[kind];
      const where = `step ${i + 1} at +${formatDuration(s.offsetMs) || '0 s'}`;
      if (s.offsetMs >= rule.windowMs) {
        details.push({
          path: at,
          message: `${where} falls outside the contact window: ${describeRule(kind, rule)}. Move it earlier or add a template fallback.`,
        });
      } else if (i >= rule.count) {
        details.push({
          path: at,
          message: `${where} would be message ${i + 1} in a window where ${describeRule(kind, rule)}. Add a template fallback or drop a step.`,
        });
      }
    }
    if (message) {
      steps.push({
        offsetMs: s.offsetMs,
        message,
        fallback,
        ...(s.maxLatenessMs ? { maxLatenessMs: s.maxLatenessMs } : {}),
      });
    }
  });
  if (details.length > 0) throw new ValidationError('invalid sequence', details);
  return {
    appId: d.appId,
    name: d.name,
    trigger: d.trigger,
    steps,
    oncePerFollower: d.oncePerFollower,
    exits: d.exits,
  };
}
