import type { Pool, PoolClient } from '../db/pool';
import { FINAL_STATUSES, sqlList } from './message-status';

/**
 * Finished messages and their attempts ($1 olderThanMs, $2 limit): the oldest `limit` rows finished (last
 * updated) more than `olderThanMs` ago, read through scheduled_messages_finished and row-locked without
 * waiting. A row a replay just moved back to `queued` is not final any more when its lock is taken
 * (Postgres checks the condition again on the row it locks) and is left alone; the DELETE checks it too.
 * One statement: its own short transaction. The deletes look the ids up (`= ANY (ARRAY(…))`, one index
 * probe each): joined to the CTE, the planner reads every finished row and every attempt to hash them.
 * Exported for the test that checks what it reads.
 */
export const PRUNE_MESSAGES_SQL = `
WITH doomed AS (
  SELECT id FROM scheduled_messages
  WHERE status IN (${sqlList(FINAL_STATUSES)}) AND updated_at < now() - $1 * interval '1 millisecond'
  ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED
), attempts AS (
  DELETE FROM delivery_attempts WHERE message_id = ANY (ARRAY(SELECT id FROM doomed)) RETURNING 1
), messages AS (
  DELETE FROM scheduled_messages
  WHERE id = ANY (ARRAY(SELECT id FROM doomed)) AND status IN (${sqlList(FINAL_STATUSES)}) RETURNING 1
)
SELECT (SELECT count(*) FROM messages)::int AS messages, (SELECT count(*) FROM attempts)::int AS attempts`;

/** Deletes one batch of finished messages with their delivery attempts; returns how many of each. */
export async function pruneFinishedMessages(
  db: Pool | PoolClient,
  olderThanMs: number,
  limit: number,
): Promise<{ messages: number; attempts: number }> {
  const { rows } = await db.query<{ messages: number; attempts: number }>(PRUNE_MESSAGES_SQL, [
    olderThanMs,
    limit,
  ]);
  return rows[0];
}

/**
 * Deletes one batch of processed webhook pushes received more than `olderThanMs` ago, oldest first, through
 * webhook_pushes_processed; returns how many. Unprocessed ones stay for the worker's stale-push sweep.
 */
export async function pruneProcessedPushes(
  db: Pool | PoolClient,
  olderThanMs: number,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `WITH doomed AS (
       SELECT id FROM webhook_pushes
       WHERE processed_at IS NOT NULL AND received_at < now() - $1 * interval '1 millisecond'
       ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED
     )
     DELETE FROM webhook_pushes WHERE id = ANY (ARRAY(SELECT id FROM doomed)) AND processed_at IS NOT NULL`,
    [olderThanMs, limit],
  );
  return rowCount ?? 0;
}

/**
 * How long ago, in ms, the oldest finished message finished (0 when there is none): the pruner's lag is
 * this less the retention age. One probe of scheduled_messages_finished.
 */
export async function oldestFinishedAgeMs(db: Pool | PoolClient): Promise<number> {
  const { rows } = await db.query<{ age_ms: number | null }>(
    `SELECT (extract(epoch FROM now() - min(updated_at)) * 1000)::float8 AS age_ms
     FROM scheduled_messages WHERE status IN (${sqlList(FINAL_STATUSES)})`,
  );
  return rows[0].age_ms ?? 0;
}
