import {
  templateRuleIssues,
  TEMPLATE_FIELD_MAX_CHARS,
  type TemplateRuleIssue,
} from '../policy/template-rules';
import type { IssueDetail } from '../validation';
import { isNoticeFallback, type TemplateMessage } from '../wechat/message-schema';
import type { TemplateLibrary } from '../wechat/template-library';
import { journeyShape } from '../policy/journey-plan';
import { placeSteps } from './journey-windows';
import type { SequenceDefinition } from './sequence-schema';

/** Every template-message fallback of a sequence, on every path (notices aside), with the field of its step or variant. */
function templateFallbacks(d: SequenceDefinition): { at: string; fallback: TemplateMessage }[] {
  return placeSteps(d.trigger, journeyShape(d)).flatMap(({ step, at: stepAt }) => {
    const contents = step.variants
      ? step.variants.map((v, j) => ({ at: `${stepAt}.variants.${j}.fallback`, fallback: v.fallback }))
      : [{ at: `${stepAt}.fallback`, fallback: step.fallback ?? null }];
    return contents.flatMap(({ at, fallback }) =>
      fallback && !isNoticeFallback(fallback) ? [{ at, fallback }] : [],
    );
  });
}

const RULE_MESSAGES: {
  [K in TemplateRuleIssue['kind']]: (i: Extract<TemplateRuleIssue, { kind: K }>) => string;
} = {
  dropped_field: (i) => `WeChat no longer shows “${i.key}” (since 2023-05-04): followers will not see it`,
  colour: () => 'WeChat ignores custom colours (since 2023-05-04): the field shows in the default colour',
  emoji: () => 'WeChat drops emoji from template messages (since 2023-05-04)',
  too_long: (i) =>
    `${i.chars} characters: a template field holds at most ${TEMPLATE_FIELD_MAX_CHARS} (since 2023-05-04); WeChat refuses the message (47003)`,
  line_break: () => 'WeChat shows a template field on one line (since 2023-05-04): the line break is lost',
};

const describeRule = (issue: TemplateRuleIssue): string =>
  (RULE_MESSAGES[issue.kind] as (i: TemplateRuleIssue) => string)(issue);

/**
 * The save-time check of WeChat's template rules (src/policy/template-rules.ts) on every template fallback:
 * a warning per field and rule broken, at the field (`….data.<key>.value`, `….color` for a colour).
 */
export function templateRuleWarnings(d: SequenceDefinition): IssueDetail[] {
  return templateFallbacks(d).flatMap(({ at, fallback }) =>
    templateRuleIssues(fallback.data).map((issue) => ({
      path: `${at}.data.${issue.key}.${issue.kind === 'colour' ? 'color' : 'value'}`,
      message: describeRule(issue),
      rule: { ...issue, kind: `template_${issue.kind}` },
    })),
  );
}

/**
 * The save-time check of template ids against the account's template library, as WeChat lists it: a
 * warning at each fallback whose template the account does not have (WeChat answers 40037 and the step
 * fails). When the list cannot be had, one warning says so; the save goes on either way.
 */
export async function unknownTemplateWarnings(
  d: SequenceDefinition,
  library: TemplateLibrary,
): Promise<IssueDetail[]> {
  const fallbacks = templateFallbacks(d);
  if (fallbacks.length === 0) return [];
  const answer = await library.templates(
    d.appId,
    fallbacks.map((f) => f.fallback.template_id),
  );
  if (!answer.ok) {
    return [
      {
        path: `${fallbacks[0].at}.template_id`,
        message: `the template ids could not be checked: WeChat's template list of ${d.appId} is unavailable (${answer.reason})`,
        rule: { kind: 'templates_unavailable', reason: answer.reason },
      },
    ];
  }
  const known = new Set(answer.templates.map((t) => t.templateId));
  return fallbacks
    .filter(({ fallback }) => !known.has(fallback.template_id))
    .map(({ at, fallback }) => ({
      path: `${at}.template_id`,
      message: `${d.appId} has no template ${fallback.template_id} in its WeChat template library: WeChat would answer 40037 and the step fail. Its templates: ${[...known].join(', ') || 'none'}`,
      rule: { kind: 'unknown_template', templateId: fallback.template_id, known: [...known] },
    }));
}
