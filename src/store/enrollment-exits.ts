import type { PoolClient } from '../db/pool';
import type { ExitCondition, Goal } from '../contract';
import { LEDGER_COVERS } from './ledger';
import { isOpenSql } from './message-status';

/** A follower to look up: whose running enrollments may exit. */
export interface ExitingFollower {
  readonly appId: string;
  readonly openid: string;
}

/** A running enrollment of the follower at `index` in the list asked about, with its sequence's exits. */
export interface RunningEnrollment {
  readonly index: number;
  readonly appId: string;
  readonly enrollmentId: string;
  readonly sequenceId: string;
  /** The exit conditions of the sequence's current version. */
  readonly exits: readonly ExitCondition[];
  /** Its current version's goal, when reaching it ends the enrollment (`exit`); else null. */
  readonly exitGoal: Goal | null;
}

/**
 * The followers' enrollments that still have a step to send (open, and covered by no cancellation) or a
 * journey wait open, in a sequence with exit conditions or a goal that ends the enrollment. One statement for the list; each follower's messages are found through
 * the follower index.
 *
 * Parameters: `$1 text[]` app ids, `$2 text[]` openids (pairwise). Result: one row per enrollment, `n`
 * the 1-based position of its follower in the list.
 */
const RUNNING_WITH_EXITS_SQL = `
SELECT f.n::int AS n, e.app_id, e.id AS enrollment_id, e.sequence_id, v.exits,
       CASE WHEN (v.goal->>'exit')::boolean THEN v.goal END AS exit_goal
FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS f(app_id, openid, n)
JOIN enrollments e ON e.app_id = f.app_id AND e.openid = f.openid
JOIN sequences s ON s.id = e.sequence_id
JOIN sequence_versions v ON v.sequence_id = s.id AND v.version = s.current_version
WHERE (v.exits <> '[]'::jsonb OR (v.goal->>'exit')::boolean)
  AND (EXISTS (SELECT 1 FROM scheduled_messages m
               WHERE m.app_id = f.app_id AND m.openid = f.openid AND m.enrollment_id = e.id
                 AND ${isOpenSql('m.status')} AND NOT ${LEDGER_COVERS('m')})
       OR EXISTS (SELECT 1 FROM journey_waits w WHERE w.enrollment_id = e.id AND w.outcome IS NULL))
ORDER BY f.n, e.created_at`;

/** The running enrollments (RUNNING_WITH_EXITS_SQL) of `followers`, in list order. */
export async function listRunningWithExits(
  db: PoolClient,
  followers: readonly ExitingFollower[],
): Promise<RunningEnrollment[]> {
  if (followers.length === 0) return [];
  const { rows } = await db.query<{
    n: number;
    app_id: string;
    enrollment_id: string;
    sequence_id: string;
    exits: ExitCondition[];
    exit_goal: Goal | null;
  }>(RUNNING_WITH_EXITS_SQL, [followers.map((f) => f.appId), followers.map((f) => f.openid)]);
  return rows.map((r) => ({
    index: r.n - 1,
    appId: r.app_id,
    enrollmentId: r.enrollment_id,
    sequenceId: r.sequence_id,
    exits: r.exits,
    exitGoal: r.exit_goal,
  }));
}

/**
 * How many steps of each enrollment are still to send (open, covered by no cancellation): what an exit
 * stops. Counted in the caller's transaction, after `holdClaims` on their accounts, so the count is true.
 * Enrollments with none are absent from the map.
 */
export async function countOpenStepsByEnrollment(
  db: PoolClient,
  enrollmentIds: readonly string[],
): Promise<Map<string, number>> {
  if (enrollmentIds.length === 0) return new Map();
  const { rows } = await db.query<{ enrollment_id: string; n: number }>(
    `SELECT m.enrollment_id, count(*)::int AS n FROM enrollments e
     JOIN scheduled_messages m ON m.app_id = e.app_id AND m.openid = e.openid AND m.enrollment_id = e.id
     WHERE e.id = ANY($1::uuid[]) AND ${isOpenSql('m.status')} AND NOT ${LEDGER_COVERS('m')}
     GROUP BY m.enrollment_id`,
    [enrollmentIds],
  );
  return new Map(rows.map((r) => [r.enrollment_id, r.n]));
}
