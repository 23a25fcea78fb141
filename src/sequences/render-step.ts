import { ValidationError } from '../errors';
import type { IssueDetail } from '../validation';
import { parseCustomMessage, parseStepFallback, splitFallback } from '../wechat/message-schema';
import type { StepContent } from './choose-variant';
import { renderVars } from './template-vars';

/** A step's message and fallback (its variant's, for an A/B step) with an enrollment's variables filled in. */
export interface RenderedStep {
  readonly variant: string | null;
  readonly message: Record<string, unknown>;
  readonly fallback: Record<string, unknown> | null;
  /** The fallback's channel: a template message, or a subscription notice. */
  readonly fallbackChannel: 'template' | 'notice';
}

/**
 * Fills a step's variables (`vars`, else each variable's default). With `check`, a variable with neither is
 * an issue naming it, and the rendered message and fallback are checked against WeChat's limits now, not
 * when they fall due; every issue is pushed to `issues`. Without it (a push's enrollment, whose sequence
 * was checked when saved), a variable with neither stays as written.
 */
export function renderStep(
  step: StepContent,
  index: number,
  vars: Readonly<Record<string, string>>,
  issues: IssueDetail[] | null,
): RenderedStep {
  const message = renderVars(step.message, vars, { asText: true });
  const fallback = step.fallback ? renderVars(step.fallback, vars, { asText: false }) : null;
  if (issues) {
    for (const name of new Set([...message.missing, ...(fallback?.missing ?? [])])) {
      issues.push({
        path: `vars.${name}`,
        message: `step ${index + 1} uses {{${name}}}, which has no default: give its value`,
        rule: { kind: 'variable_missing', name, step: index + 1 },
      });
    }
    const at = `steps.${index}`;
    collect(issues, () => parseCustomMessage(message.rendered, `${at}.message`));
    if (fallback) collect(issues, () => parseStepFallback(fallback.rendered, `${at}.fallback`));
  }
  if (!fallback) {
    return { variant: step.variant, message: message.rendered, fallback: null, fallbackChannel: 'template' };
  }
  return { variant: step.variant, message: message.rendered, ...splitFallback(fallback.rendered) };
}

function collect(issues: IssueDetail[], check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(
      ...((err.details as IssueDetail[] | undefined) ?? [{ path: 'message', message: err.message }]),
    );
  }
}
