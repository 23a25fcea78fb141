import type { PoolClient } from '../db/pool';
import type { SequenceStatus } from '../contract';

const ARCHIVED: SequenceStatus = 'archived';

/**
 * Archives every sequence of the account not archived yet, and ends its journeys' open waits, in one
 * statement inside the caller's transaction (an account being deleted): none enrolls a follower or
 * starts a path from then on. Returns how many sequences it archived.
 * -- Params: $1 app_id
 * -- Returns: n, the sequences archived
 */
export async function archiveAccountSequences(db: PoolClient, appId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH archived AS (
       UPDATE sequences SET status = '${ARCHIVED}', updated_at = now()
       WHERE app_id = $1 AND status <> '${ARCHIVED}'
       RETURNING id
     ), ended AS (
       UPDATE journey_waits w SET outcome = 'ended', resolved_at = now()
       FROM archived a WHERE w.sequence_id = a.id AND w.outcome IS NULL
     )
     SELECT count(*)::int AS n FROM archived`,
    [appId],
  );
  return rows[0].n;
}
