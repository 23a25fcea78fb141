import type { Pool } from '../db/pool';
import type { SequenceResults, StepResult } from '../contract';
import { ledgerStatusSql } from './ledger';
import { MESSAGE_STATUS, type MessageStatus, sqlList } from './message-status';
import type { DeliveryReport } from './template-reports';
import { variantResults } from './variant-results';
import { MOVED_REASON } from './last-chance-steps';

/** The final states the per-minute series counts. */
const FINISHED = [MESSAGE_STATUS.sent, MESSAGE_STATUS.skipped, MESSAGE_STATUS.failed];

/**
 * Enrollments of sequence `$1` that ended with steps pending, by condition: an exit's ledger row (its reason,
 * `exit:…`), or else an unfollow (`unsubscribed`: the steps it cancelled keep their enrollment id). Each
 * probe of the ledger is one of its index.
 */
const EXITED_SQL = `
SELECT reason, count(*)::int AS n FROM (
  SELECT c.reason FROM enrollments e
  JOIN cancellations c ON c.app_id = e.app_id AND c.scope = 'enrollment' AND c.target = e.id::text
  WHERE e.sequence_id = $1 AND c.reason LIKE 'exit:%'
  UNION ALL
  SELECT 'unsubscribed' FROM scheduled_messages m
  WHERE m.sequence_id = $1 AND m.status = '${MESSAGE_STATUS.cancelled}' AND m.status_reason = 'unsubscribed'
    AND NOT EXISTS (SELECT 1 FROM cancellations c
                    WHERE c.app_id = m.app_id AND c.scope = 'enrollment' AND c.target = m.enrollment_id::text)
  GROUP BY m.enrollment_id
) x GROUP BY reason`;

/** Results per step of a sequence, across all its versions, for marketing's results page (its paths apart). */
export async function sequenceResults(
  pool: Pool,
  sequenceId: string,
): Promise<Omit<SequenceResults, 'paths' | 'conversions'>> {
  const [counts, lateness, enrolled, series, exited, variants] = await Promise.all([
    pool.query<{
      step_index: number;
      status: MessageStatus;
      reason: string | null;
      report: DeliveryReport | null;
      n: number;
    }>(
      `SELECT m.step_index, ${ledgerStatusSql('m')} AS status, m.status_reason AS reason,
              m.delivery_report AS report, count(*)::int AS n
       FROM scheduled_messages m
       WHERE m.sequence_id = $1
         AND NOT (m.status = '${MESSAGE_STATUS.cancelled}' AND m.status_reason = '${MOVED_REASON}')
       GROUP BY 1, 2, 3, 4`,
      [sequenceId],
    ),
    pool.query<{ step_index: number; p50: number; p95: number; p99: number; max: number }>(
      `SELECT step_index,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - due_at) * 1000) AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - due_at) * 1000) AS p95,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - due_at) * 1000) AS p99,
              max(extract(epoch FROM sent_at - due_at) * 1000) AS max
       FROM scheduled_messages WHERE sequence_id = $1 AND status = '${MESSAGE_STATUS.sent}' GROUP BY 1`,
      [sequenceId],
    ),
    pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM enrollments WHERE sequence_id = $1`, [
      sequenceId,
    ]),
    pool.query<{ at: Date; sent: number; skipped: number; failed: number }>(
      `SELECT date_trunc('minute', updated_at) AS at,
              count(*) FILTER (WHERE status = '${MESSAGE_STATUS.sent}')::int AS sent,
              count(*) FILTER (WHERE status = '${MESSAGE_STATUS.skipped}')::int AS skipped,
              count(*) FILTER (WHERE status = '${MESSAGE_STATUS.failed}')::int AS failed
       FROM scheduled_messages
       WHERE sequence_id = $1 AND status IN (${sqlList(FINISHED)}) AND updated_at > now() - interval '24 hours'
       GROUP BY 1 ORDER BY 1`,
      [sequenceId],
    ),
    pool.query<{ reason: string; n: number }>(EXITED_SQL, [sequenceId]),
    variantResults(pool, sequenceId),
  ]);
  const steps = new Map<number, StepResult>();
  const stepOf = (i: number) => {
    let s = steps.get(i);
    if (!s) {
      s = {
        stepIndex: i,
        scheduled: 0,
        pending: 0,
        sent: 0,
        cancelled: 0,
        unknown: 0,
        skipped: {},
        failed: {},
        delivery: {},
        latenessMs: null,
      };
      steps.set(i, s);
    }
    return s;
  };
  for (const r of counts.rows) {
    const s = stepOf(r.step_index);
    s.scheduled += r.n;
    const reason = r.reason ?? 'unspecified';
    if (r.status === MESSAGE_STATUS.skipped) s.skipped[reason] = (s.skipped[reason] ?? 0) + r.n;
    else if (r.status === MESSAGE_STATUS.failed) s.failed[reason] = (s.failed[reason] ?? 0) + r.n;
    else if (r.status === MESSAGE_STATUS.sent) {
      s.sent += r.n;
      if (r.report !== null) s.delivery[r.report] = (s.delivery[r.report] ?? 0) + r.n;
    } else if (r.status === MESSAGE_STATUS.cancelled) s.cancelled += r.n;
    else if (r.status === MESSAGE_STATUS.unknown) s.unknown += r.n;
    else s.pending += r.n; // queued, sending
  }
  for (const r of lateness.rows) {
    stepOf(r.step_index).latenessMs = {
      p50: Math.round(r.p50),
      p95: Math.round(r.p95),
      p99: Math.round(r.p99),
      max: Math.round(r.max),
    };
  }
  for (const [i, results] of variants) stepOf(i).variants = results;
  return {
    sequenceId,
    enrolled: enrolled.rows[0].n,
    exited: Object.fromEntries(exited.rows.map((r) => [r.reason, r.n])),
    steps: [...steps.values()].sort((a, b) => a.stepIndex - b.stepIndex),
    series: series.rows.map((r) => ({
      at: r.at.toISOString(),
      sent: r.sent,
      skipped: r.skipped,
      failed: r.failed,
    })),
  };
}
