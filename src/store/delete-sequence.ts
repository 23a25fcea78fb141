import type { PoolClient } from '../db/pool';
import type { SequenceStatus } from '../contract';

/** The statuses a sequence may be deleted in: it enrolls no one in them. */
export const DELETABLE_STATUSES = ['draft', 'archived'] as const satisfies readonly SequenceStatus[];

/**
 * How many enrollments the sequence has had (its history: results, the followers' timelines).
 * -- Params: $1 sequence id
 */
export async function countEnrollments(db: PoolClient, sequenceId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM enrollments WHERE sequence_id = $1`,
    [sequenceId],
  );
  return rows[0].n;
}

/**
 * Deletes the sequence and its versions, only while it is a draft or archived and has no enrollment
 * (guarded here, whatever the caller checked). Returns whether it was deleted.
 * -- Params: $1 sequence id, $2 the deletable statuses
 */
export async function deleteSequence(db: PoolClient, sequenceId: string): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM sequences s
       WHERE s.id = $1 AND s.status = ANY($2::text[])
         AND NOT EXISTS (SELECT 1 FROM enrollments e WHERE e.sequence_id = s.id)
       RETURNING s.id
     ), versions AS (
       DELETE FROM sequence_versions v USING gone WHERE v.sequence_id = gone.id
     )
     SELECT count(*)::int AS n FROM gone`,
    [sequenceId, DELETABLE_STATUSES],
  );
  return rows[0].n === 1;
}
