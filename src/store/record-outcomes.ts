import type { Pool } from '../db/pool';
import { MESSAGE_STATUS, type MessageStatus, sqlList } from './message-status';
import { byIdStatement, inPartitionsOf, partitionSlotsOf } from './message-partitions';

/**
 * What one attempt came to, as recorded in delivery_attempts.outcome. `paused` (the account hit its quota
 * before the send) does not count as an attempt: recording it gives back the claim's `attempts + 1`.
 */
export const ATTEMPT_OUTCOME = {
  sent: 'sent',
  retry: 'retry',
  failed: 'failed',
  skipped: 'skipped',
  paused: 'paused',
  /** The answer was lost and the send may have reached WeChat; it is not repeated. */
  unknown: 'unknown',
} as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOME)[keyof typeof ATTEMPT_OUTCOME];

/** What happened to one claimed message, to be recorded. */
export interface Outcome {
  readonly id: string;
  /** The row's next status: a final one, or `queued` again for a retry / a paused account. */
  readonly status: MessageStatus;
  readonly reason: string | null;
  /** For `queued`: the new due time. */
  readonly nextDueAt: Date | null;
  /** When the WeChat call returned. */
  readonly at: Date;
  /** The attempt to record. */
  readonly attempt: number;
  readonly errcode: number | null;
  readonly errmsg: string;
  readonly durationMs: number;
  /** What the attempt came to; `paused` does not count as an attempt. */
  readonly label: AttemptOutcome;
  /** WeChat's msgid of a sent template message, which its delivery report names. */
  readonly msgid?: string | null;
}

const recordOutcomesStatement = byIdStatement(
  'record_outcomes',
  `WITH o AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[],
                            $6::int[], $7::int[], $8::text[], $9::int[], $10::text[], $11::text[])
         AS o(id, status, reason, next_due_at, at, attempt, errcode, errmsg, duration_ms, label, msgid)
     ), updated AS (
       UPDATE scheduled_messages m
       SET status = o.status, status_reason = o.reason, due_at = COALESCE(o.next_due_at, m.due_at),
           sent_at = CASE WHEN o.status = '${MESSAGE_STATUS.sent}' THEN o.at ELSE m.sent_at END,
           attempts = CASE WHEN o.label = '${ATTEMPT_OUTCOME.paused}' THEN m.attempts - 1 ELSE m.attempts END,
           template_msgid = COALESCE(o.msgid, m.template_msgid),
           updated_at = now()
       FROM o WHERE m.id = o.id AND m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')} AND m.status IN (${sqlList([MESSAGE_STATUS.sending, MESSAGE_STATUS.unknown])})
       RETURNING m.id
     )
     INSERT INTO delivery_attempts (message_id, attempt, errcode, errmsg, duration_ms, outcome, created_at, due_slot)
     SELECT id, attempt, errcode, errmsg, duration_ms, label, at, COALESCE(message_slot(id), '-infinity') FROM o`,
);

/**
 * Records a batch of outcomes and their attempts in one statement. Guarded on `sending` (or `unknown`,
 * when the sweeper gave up on a send that did finish): a row is never moved back from a final state.
 */
export async function recordOutcomes(pool: Pool, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await pool.query(
    recordOutcomesStatement(
      [
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.reason),
        outcomes.map((o) => o.nextDueAt?.toISOString() ?? null),
        outcomes.map((o) => o.at.toISOString()),
        outcomes.map((o) => o.attempt),
        outcomes.map((o) => o.errcode),
        outcomes.map((o) => o.errmsg),
        outcomes.map((o) => o.durationMs),
        outcomes.map((o) => o.label),
        outcomes.map((o) => o.msgid ?? null),
      ],
      partitionSlotsOf(
        outcomes.map((o) => o.id),
        { awaitingPump: false },
      ),
    ),
  );
}
