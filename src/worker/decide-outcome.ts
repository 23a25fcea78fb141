import type { SendVerdict } from '../wechat/judged-sender';
import type { ClaimedMessage } from '../store/claim-due';
import { MESSAGE_STATUS } from '../store/message-status';
import { ATTEMPT_OUTCOME, type Outcome } from '../store/record-outcomes';
import { TEMPLATE_RESEND_WITHIN_MS } from '../store/sweep-stuck-sending';
import { nextQuotaReset, type RetryPolicy, retryDelayMs } from './retry-policy';

/** Everything the worker does about a send once its outcome is recorded, decided in one place. */
export interface DeliveryPlan {
  readonly outcome: Outcome;
  /** A new wake-up for the message at `outcome.nextDueAt`, or null when the message is finished. */
  readonly republish: 'retry' | 'paused' | null;
  /** Its attempts ran out: a copy goes to the dead-letter queue. */
  readonly deadLetter: boolean;
  /** The whole account waits until `outcome.nextDueAt` (daily quota, refused configuration). */
  readonly pauseAccount: boolean;
  /** WeChat says the follower's contact window is closed: our record of it is closed too. */
  readonly closeWindow: boolean;
}

/** A plan that does nothing beyond recording `outcome`, with the given steps added. */
const planFor = (outcome: Outcome, steps: Partial<Omit<DeliveryPlan, 'outcome'>> = {}): DeliveryPlan => ({
  outcome,
  republish: null,
  deadLetter: false,
  pauseAccount: false,
  closeWindow: false,
  ...steps,
});

export interface SendReport {
  readonly errcode: number | null;
  readonly errmsg: string;
  readonly durationMs: number;
  readonly at: Date;
  /** WeChat's msgid, when its answer carried one (a template send). */
  readonly msgid?: string;
}

/**
 * The one decision after a send: the row's next state and everything to do about it. Transient failures come
 * back `queued` with a backoff until the attempts run out, then `failed` and dead-lettered; WeChat saying
 * the contact window is closed makes the message `skipped` and closes our record of the window; 45009 parks the message until the account's quota resets (a refused
 * configuration, until `resumeAt`) without spending an attempt. A send whose answer was lost (it may have
 * reached WeChat) is retried like a transient failure only when a repeat cannot reach the follower twice
 * (see `mayResend`); otherwise it is `unknown` (`answer_lost`) and finished, like a row the sweeper finds
 * stuck in `sending`.
 */
export function decideOutcome(
  message: ClaimedMessage,
  report: SendReport,
  verdict: SendVerdict,
  policy: RetryPolicy,
  random: () => number = Math.random,
): DeliveryPlan {
  const base = {
    id: message.id,
    at: report.at,
    attempt: message.attempts,
    errcode: report.errcode,
    errmsg: report.errmsg,
    durationMs: report.durationMs,
  };
  const msgid = report.msgid ?? null;
  switch (verdict.action) {
    case 'answer_lost': {
      const plan = retry(message, report, verdict, policy, base, random);
      if (mayResend(message, report, plan, policy)) return plan;
      return planFor({
        ...base,
        status: MESSAGE_STATUS.unknown,
        reason: verdict.reason,
        nextDueAt: null,
        label: ATTEMPT_OUTCOME.unknown,
      });
    }
    case 'ok':
      return planFor({ ...base, status: 'sent', reason: null, nextDueAt: null, label: 'sent', msgid });
    case 'retry':
    case 'refresh_token':
      return retry(message, report, verdict, policy, base, random);
    case 'window_closed':
      return planFor(
        { ...base, status: 'skipped', reason: verdict.reason, nextDueAt: null, label: 'skipped' },
        { closeWindow: true },
      );
    case 'no_subscription':
      return planFor({
        ...base,
        status: 'skipped',
        reason: verdict.reason,
        nextDueAt: null,
        label: 'skipped',
      });
    case 'stop_account':
      return planFor(
        {
          ...base,
          status: 'queued',
          reason: verdict.reason,
          nextDueAt: verdict.resumeAt ?? nextQuotaReset(report.at),
          label: 'paused',
        },
        { republish: 'paused', pauseAccount: true },
      );
    case 'fail':
      return planFor({ ...base, status: 'failed', reason: verdict.reason, nextDueAt: null, label: 'failed' });
  }
}

/**
 * Whether a send whose answer was lost may take its retry `plan` (a re-delay, or `failed` once the attempts
 * ran out): for an account that opted into at-least-once, always; for a template message, when the resend
 * comes within TEMPLATE_RESEND_WITHIN_MS of this attempt's start, while WeChat still de-duplicates its
 * `client_msg_id` (the sweeper's rule for a template row stuck in `sending`). A customer-service message
 * has no idempotency key: a resend could reach the follower twice.
 */
function mayResend(
  message: ClaimedMessage,
  report: SendReport,
  plan: DeliveryPlan,
  policy: RetryPolicy,
): boolean {
  if (policy.atLeastOnceAppIds.includes(message.appId)) return true;
  if (message.channel !== 'template') return false;
  const { nextDueAt } = plan.outcome;
  if (nextDueAt === null) return true;
  const startedAt = report.at.getTime() - report.durationMs;
  return nextDueAt.getTime() < startedAt + TEMPLATE_RESEND_WITHIN_MS;
}

/** Re-delays a message with backoff while attempts remain; then `failed` and dead-lettered. */
function retry(
  message: ClaimedMessage,
  report: SendReport,
  verdict: SendVerdict,
  policy: RetryPolicy,
  base: Pick<Outcome, 'id' | 'at' | 'attempt' | 'errcode' | 'errmsg' | 'durationMs'>,
  random: () => number,
): DeliveryPlan {
  if (message.attempts >= policy.maxAttempts) {
    return planFor(
      { ...base, status: 'failed', reason: verdict.reason, nextDueAt: null, label: 'failed' },
      { deadLetter: true },
    );
  }
  const delayMs = Math.max(verdict.minRetryDelayMs ?? 0, retryDelayMs(message.attempts, policy, random));
  const nextDueAt = new Date(report.at.getTime() + delayMs);
  return planFor(
    { ...base, status: 'queued', reason: verdict.reason, nextDueAt, label: 'retry' },
    { republish: 'retry' },
  );
}
