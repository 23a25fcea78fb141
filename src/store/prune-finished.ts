import type { Pool, PoolClient } from '../db/pool';
import { FINAL_STATUSES, sqlList } from './message-status';

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
