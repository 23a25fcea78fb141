import type { Metrics } from '../metrics';
import { CLAIM_SKIP_REASON, CLAIMED_AS, type ClaimedAs, type ClaimResult } from '../store/claim-due';
import { type Channel, MESSAGE_STATUS } from '../store/message-status';
import { ATTEMPT_OUTCOME, type Outcome } from '../store/record-outcomes';
import { ANSWER_LOST } from '../wechat/errcodes';

/** The WeChat endpoint of each channel, as the duration metric labels it. */
const ENDPOINT_OF: Record<Channel, string> = {
  custom: 'custom/send',
  template: 'template/send',
  notice: 'subscribe/bizsend',
};

const WINDOW_VERDICT: Record<ClaimedAs, string> = {
  [CLAIMED_AS.unchecked]: 'unchecked',
  [CLAIMED_AS.window]: 'open',
  [CLAIMED_AS.fallback]: 'fallback',
};

/** Counts what one claim found: wake-ups by verdict, skips by reason, window checks by verdict. */
export function countClaim(metrics: Metrics, claim: ClaimResult, dropped: number): void {
  metrics.delivered.inc({ verdict: 'claimed' }, claim.claimed.length);
  metrics.delivered.inc({ verdict: 'early' }, claim.early.length);
  metrics.delivered.inc({ verdict: 'cancelled' }, claim.cancelled.length);
  metrics.delivered.inc({ verdict: 'skipped' }, claim.skipped.length);
  metrics.delivered.inc({ verdict: 'dropped' }, dropped);
  for (const s of claim.skipped) {
    metrics.skipped.inc({ reason: s.reason });
    if (s.reason === CLAIM_SKIP_REASON.windowClosed) metrics.windowChecks.inc({ verdict: 'closed' });
  }
  for (const m of claim.claimed) {
    if (m.channel === 'custom' || m.claimedAs === CLAIMED_AS.fallback) {
      metrics.windowChecks.inc({ verdict: WINDOW_VERDICT[m.claimedAs] });
    }
  }
}

/** Counts one recorded outcome: sends with their lateness and duration, skips, retries, failures. */
export function countOutcome(metrics: Metrics, outcome: Outcome, channel: Channel, dueAt: Date): void {
  const endpoint = ENDPOINT_OF[channel];
  const answer = outcome.reason === ANSWER_LOST.reason ? ANSWER_LOST.reason : 'no_answer';
  metrics.wechatDuration.observe(
    { endpoint, outcome: outcome.errcode === null ? answer : String(outcome.errcode) },
    outcome.durationMs / 1000,
  );
  if (outcome.status === 'sent') {
    metrics.sent.inc({ channel });
    metrics.lateness.observe(Math.max(0, outcome.at.getTime() - dueAt.getTime()) / 1000);
  } else if (outcome.status === 'skipped') metrics.skipped.inc({ reason: outcome.reason ?? 'unspecified' });
  else if (outcome.status === 'failed') metrics.failed.inc({ reason: outcome.reason ?? 'unspecified' });
  else if (outcome.status === MESSAGE_STATUS.unknown)
    metrics.unknown.inc({ reason: outcome.reason ?? 'unspecified' });
  else if (outcome.label === ATTEMPT_OUTCOME.retry)
    metrics.retries.inc({ reason: outcome.reason ?? 'unspecified' });
}
