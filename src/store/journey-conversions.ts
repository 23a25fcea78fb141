import type { Pool, PoolClient } from '../db/pool';
import type { Goal } from '../contract';
import { MESSAGE_STATUS } from './message-status';

/** An enrollment of the follower at `index` whose version has a goal it has not reached yet. */
export interface GoalCandidate {
  readonly index: number;
  readonly enrollmentId: string;
  readonly sequenceId: string;
  readonly version: number;
  readonly goal: Goal;
}

/**
 * The followers' enrollments, enrolled within their goal's period before the action's time (and not
 * after it), whose version has a goal, not converted yet. Parameters: `$1 text[]` app ids, `$2 text[]`
 * openids, `$3 timestamptz[]` the actions' times (pairwise).
 */
export async function listGoalCandidates(
  db: PoolClient,
  followers: readonly { appId: string; openid: string; at: Date }[],
): Promise<GoalCandidate[]> {
  if (followers.length === 0) return [];
  const { rows } = await db.query<{
    n: number;
    enrollment_id: string;
    sequence_id: string;
    version: number;
    goal: Goal;
  }>(
    `SELECT f.n::int AS n, e.id AS enrollment_id, e.sequence_id, e.version, v.goal
     FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS f(app_id, openid, at, n)
     JOIN enrollments e ON e.app_id = f.app_id AND e.openid = f.openid
     JOIN sequence_versions v ON v.sequence_id = e.sequence_id AND v.version = e.version
     WHERE v.goal IS NOT NULL AND e.created_at <= f.at
       AND e.created_at >= f.at - ((v.goal->>'periodMs')::bigint * interval '1 millisecond')
       AND NOT EXISTS (SELECT 1 FROM journey_conversions c WHERE c.enrollment_id = e.id)
     ORDER BY f.n, e.created_at`,
    [followers.map((f) => f.appId), followers.map((f) => f.openid), followers.map((f) => f.at)],
  );
  return rows.map((r) => ({
    index: r.n - 1,
    enrollmentId: r.enrollment_id,
    sequenceId: r.sequence_id,
    version: r.version,
    goal: r.goal,
  }));
}

/**
 * Records each enrollment's conversion once (a second is ignored), attributed to the last message sent to
 * it before the goal — its step and variant; none when nothing was sent yet. Returns the enrollments it
 * recorded. The follower's messages are found through the follower index.
 */
export async function insertConversions(
  db: PoolClient,
  conversions: readonly {
    enrollmentId: string;
    sequenceId: string;
    version: number;
    appId: string;
    openid: string;
    at: Date;
  }[],
): Promise<string[]> {
  if (conversions.length === 0) return [];
  const { rows } = await db.query<{ enrollment_id: string }>(
    `INSERT INTO journey_conversions (enrollment_id, sequence_id, version, at, step_index, variant)
     SELECT r.enrollment_id, r.sequence_id, r.version, r.at, last.step_index, last.variant
     FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[], $5::text[], $6::timestamptz[])
          AS r(enrollment_id, sequence_id, version, app_id, openid, at)
     LEFT JOIN LATERAL (
       SELECT m.step_index, m.variant FROM scheduled_messages m
       WHERE m.app_id = r.app_id AND m.openid = r.openid AND m.enrollment_id = r.enrollment_id
         AND m.status = '${MESSAGE_STATUS.sent}' AND m.sent_at <= r.at
       ORDER BY m.sent_at DESC LIMIT 1) last ON true
     ORDER BY r.enrollment_id
     ON CONFLICT (enrollment_id) DO NOTHING RETURNING enrollment_id`,
    [
      conversions.map((c) => c.enrollmentId),
      conversions.map((c) => c.sequenceId),
      conversions.map((c) => c.version),
      conversions.map((c) => c.appId),
      conversions.map((c) => c.openid),
      conversions.map((c) => c.at),
    ],
  );
  return rows.map((r) => r.enrollment_id);
}

/** A sequence's conversions by version, step and variant (step null: before any message was sent). */
export async function countConversions(
  pool: Pool,
  sequenceId: string,
): Promise<{ version: number; stepIndex: number | null; variant: string | null; n: number }[]> {
  const { rows } = await pool.query<{
    version: number;
    step_index: number | null;
    variant: string | null;
    n: number;
  }>(
    `SELECT version, step_index, variant, count(*)::int AS n FROM journey_conversions
     WHERE sequence_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2 NULLS FIRST, 3 NULLS FIRST`,
    [sequenceId],
  );
  return rows.map((r) => ({ version: r.version, stepIndex: r.step_index, variant: r.variant, n: r.n }));
}
