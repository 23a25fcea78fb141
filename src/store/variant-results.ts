import type { Pool } from '../db/pool';
import type { VariantResult } from '../contract';
import { ledgerStatusSql } from './ledger';
import { MESSAGE_STATUS, type MessageStatus } from './message-status';
import { MOVED_REASON } from './last-chance-steps';

/**
 * The rows of A/B steps of sequence `$1`, per step, variant and status (as the ledger sees it); `exited_after`
 * counts the sent ones whose enrollment an exit condition ended after the send (its ledger row, `exit:…`).
 */
const VARIANT_COUNTS_SQL = `
SELECT m.step_index, m.variant, ${ledgerStatusSql('m')} AS status, count(*)::int AS n,
       count(*) FILTER (WHERE m.status = '${MESSAGE_STATUS.sent}' AND EXISTS (
         SELECT 1 FROM cancellations c
         WHERE c.app_id = m.app_id AND c.scope = 'enrollment' AND c.target = m.enrollment_id::text
           AND c.reason LIKE 'exit:%' AND c.created_at >= m.sent_at))::int AS exited_after
FROM scheduled_messages m
WHERE m.sequence_id = $1 AND m.variant IS NOT NULL
  AND NOT (m.status = '${MESSAGE_STATUS.cancelled}' AND m.status_reason = '${MOVED_REASON}')
GROUP BY 1, 2, 3`;

/** Outcomes per variant of each A/B step of a sequence, across its versions, by step index. */
export async function variantResults(pool: Pool, sequenceId: string): Promise<Map<number, VariantResult[]>> {
  const { rows } = await pool.query<{
    step_index: number;
    variant: string;
    status: MessageStatus;
    n: number;
    exited_after: number;
  }>(VARIANT_COUNTS_SQL, [sequenceId]);
  const byStep = new Map<number, Map<string, VariantResult>>();
  for (const r of rows) {
    const variants = byStep.get(r.step_index) ?? new Map<string, VariantResult>();
    byStep.set(r.step_index, variants);
    const v = variants.get(r.variant) ?? {
      name: r.variant,
      scheduled: 0,
      pending: 0,
      sent: 0,
      skipped: 0,
      failed: 0,
      cancelled: 0,
      unknown: 0,
      exitedAfter: 0,
    };
    variants.set(r.variant, v);
    v.scheduled += r.n;
    v.exitedAfter += r.exited_after;
    if (r.status === MESSAGE_STATUS.sent) v.sent += r.n;
    else if (r.status === MESSAGE_STATUS.skipped) v.skipped += r.n;
    else if (r.status === MESSAGE_STATUS.failed) v.failed += r.n;
    else if (r.status === MESSAGE_STATUS.cancelled) v.cancelled += r.n;
    else if (r.status === MESSAGE_STATUS.unknown) v.unknown += r.n;
    else v.pending += r.n; // queued, sending
  }
  return new Map(
    [...byStep].map(([step, variants]) => [
      step,
      [...variants.values()].sort((a, b) => a.name.localeCompare(b.name)),
    ]),
  );
}
