import type { Pool, PoolClient } from '../db/pool';
import { MESSAGE_STATUS, sqlList } from './message-status';

/**
 * The states in which a message may still be sent, as far as the ledger is concerned: the open ones,
 * `sending` (an at-least-once account's stuck send is claimed again), and `failed` (a dead-letter replay
 * puts it back in `queued`, and its claim must still find a cancellation recorded after it failed).
 */
const MAY_STILL_SEND = [MESSAGE_STATUS.queued, MESSAGE_STATUS.sending, MESSAGE_STATUS.failed];

/** "Message row `m` may still be sent, and was created before ledger row `b`" (the ledger's seq rule). */
const COVERED = `m.seq < b.seq AND m.status IN (${sqlList(MAY_STILL_SEND)})`;

/**
 * "Ledger row `b` still covers a message that may be sent": the inverse of ledger.ts's LEDGER_COVERS, one
 * indexed probe per scope (CASE, so that a target is cast to uuid only for the scopes that hold one). An
 * enrollment's messages are found through its follower (scheduled_messages_follower); an enrollment an
 * unfollow erased covers nothing, as that unfollow cancelled every open message of the follower.
 */
const STILL_COVERS = `CASE b.scope
  WHEN 'message' THEN EXISTS (SELECT 1 FROM scheduled_messages m WHERE m.id = b.target::uuid AND ${COVERED})
  WHEN 'cancel_key' THEN EXISTS (SELECT 1 FROM scheduled_messages m
    WHERE m.app_id = b.app_id AND m.cancel_key = b.target AND ${COVERED})
  WHEN 'follower' THEN EXISTS (SELECT 1 FROM scheduled_messages m
    WHERE m.app_id = b.app_id AND m.openid = b.target AND ${COVERED})
  WHEN 'sequence' THEN EXISTS (SELECT 1 FROM scheduled_messages m
    WHERE m.sequence_id = b.target::uuid AND m.app_id = b.app_id AND ${COVERED})
  WHEN 'enrollment' THEN EXISTS (SELECT 1 FROM enrollments e JOIN scheduled_messages m
    ON m.app_id = e.app_id AND m.openid = e.openid AND m.enrollment_id = e.id
    WHERE e.id = b.target::uuid AND e.openid <> '' AND ${COVERED})
  ELSE EXISTS (SELECT 1 FROM scheduled_messages m WHERE m.app_id = b.app_id AND ${COVERED})
END`;

/**
 * One step of the ledger's compaction ($1 after id, $2 limit, $3 olderThanMs): reads the next `limit` rows
 * by id and deletes those recorded more than `olderThanMs` ago that cover no message that may still be
 * sent. An exit's row (`exit:…` on an enrollment) stays: it is the sequence results' record that the
 * enrollment ended early, kept as long as the enrollment. Exported for the test that checks it.
 */
export const COMPACT_LEDGER_SQL = `
WITH batch AS (
  SELECT id, app_id, scope, target, seq, reason, created_at FROM cancellations
  WHERE id > $1 ORDER BY id LIMIT $2
), gone AS (
  DELETE FROM cancellations c USING batch b
  WHERE c.id = b.id AND b.created_at < now() - $3 * interval '1 millisecond'
    AND NOT (b.scope = 'enrollment' AND b.reason LIKE 'exit:%') AND NOT ${STILL_COVERS}
  RETURNING 1
)
SELECT (SELECT max(id) FROM batch)::text AS last_id, (SELECT count(*) FROM batch)::int AS read,
       (SELECT count(*) FROM gone)::int AS deleted,
       COALESCE((SELECT bool_or(created_at >= now() - $3 * interval '1 millisecond') FROM batch), true) AS reached_recent`;

/** What one step of the compaction did, and where the next one starts. */
export interface LedgerStep {
  readonly deleted: number;
  /** The id the next step reads after. */
  readonly lastId: string;
  /** True when the walk is over: it reached the end, or rows too recent to compact. */
  readonly done: boolean;
}

/**
 * Reads the ledger rows after `afterId` (a bigint, as text) and deletes the old ones that no longer cover
 * anything; the walk goes on from `lastId` until `done`.
 */
export async function compactLedgerStep(
  db: Pool | PoolClient,
  opts: { afterId: string; limit: number; olderThanMs: number },
): Promise<LedgerStep> {
  const { rows } = await db.query<{
    last_id: string | null;
    read: number;
    deleted: number;
    reached_recent: boolean;
  }>(COMPACT_LEDGER_SQL, [opts.afterId, opts.limit, opts.olderThanMs]);
  const r = rows[0];
  return {
    deleted: r.deleted,
    lastId: r.last_id ?? opts.afterId,
    done: r.reached_recent || r.read < opts.limit,
  };
}
