import type { SendVerdict } from '../wechat/judged-sender';
import type { ClaimedMessage } from '../store/claim-due';
import type { Outcome } from '../store/record-outcomes';
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
}

/**
 * The one decision after a send: the row's next state and everything to do about it. Transient failures come
 * back `queued` with a backoff until the attempts run out, then `failed` and dead-lettered; WeChat saying
 * the contact window is closed makes the message `skipped` and closes our record of the window; 45009 parks the message until the account's quota resets (a refused
 * configuration, until `resumeAt`) without spending an attempt.
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
  switch (verdict.action) {
    case 'ok':
      return planFor({ ...base, status: 'sent', reason: null, nextDueAt: null, label: 'sent' });
    case 'retry':
    case 'refresh_token': {
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
    case 'window_closed':
      return planFor(
        { ...base, status: 'skipped', reason: verdict.reason, nextDueAt: null, label: 'skipped' },
        { closeWindow: true },
      );
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
