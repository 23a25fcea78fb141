import type { ErrcodeVerdict } from '../wechat/errcodes';
import type { ClaimedMessage, Outcome } from '../scheduling/due-store';
import { nextQuotaReset, type RetryPolicy, retryDelayMs } from './retry-policy';

/** WeChat's verdict on a send; `resumeAt` says until when `stop_account` pauses (default: quota reset). */
export type Verdict = ErrcodeVerdict & { readonly resumeAt?: Date };

/** What the worker does after recording an outcome. */
export type FollowUp = 'none' | 'redelay' | 'dead_letter' | 'pause_account' | 'close_window';

export interface SendReport {
  readonly errcode: number | null;
  readonly errmsg: string;
  readonly durationMs: number;
  readonly at: Date;
}

/**
 * The one decision after a send: the row's next state and what to do about it. Transient failures come
 * back `queued` with a backoff until the attempts run out, then `failed` and dead-lettered; WeChat saying
 * the contact window is closed makes the message `skipped` and closes our record of the window; 45009 parks the message until the account's quota resets (a refused
 * configuration, until `resumeAt`) without spending an attempt.
 */
export function decideOutcome(
  message: ClaimedMessage,
  report: SendReport,
  verdict: Verdict,
  policy: RetryPolicy,
  random: () => number = Math.random,
): { outcome: Outcome; followUp: FollowUp } {
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
      return {
        outcome: { ...base, status: 'sent', reason: null, nextDueAt: null, label: 'sent' },
        followUp: 'none',
      };
    case 'retry':
    case 'refresh_token': {
      if (message.attempts >= policy.maxAttempts) {
        return {
          outcome: { ...base, status: 'failed', reason: verdict.reason, nextDueAt: null, label: 'failed' },
          followUp: 'dead_letter',
        };
      }
      const delayMs = Math.max(verdict.minRetryDelayMs ?? 0, retryDelayMs(message.attempts, policy, random));
      const nextDueAt = new Date(report.at.getTime() + delayMs);
      return {
        outcome: { ...base, status: 'queued', reason: verdict.reason, nextDueAt, label: 'retry' },
        followUp: 'redelay',
      };
    }
    case 'window_closed':
      return {
        outcome: { ...base, status: 'skipped', reason: verdict.reason, nextDueAt: null, label: 'skipped' },
        followUp: 'close_window',
      };
    case 'stop_account':
      return {
        outcome: {
          ...base,
          status: 'queued',
          reason: verdict.reason,
          nextDueAt: verdict.resumeAt ?? nextQuotaReset(report.at),
          label: 'paused',
        },
        followUp: 'pause_account',
      };
    case 'fail':
      return {
        outcome: { ...base, status: 'failed', reason: verdict.reason, nextDueAt: null, label: 'failed' },
        followUp: 'none',
      };
  }
}
