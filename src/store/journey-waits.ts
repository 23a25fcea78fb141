import type { Pool, PoolClient } from '../db/pool';
import type { WaitCondition } from '../contract';

/** Whose wait it is: the enrollment (and its sequence's version, whose paths it follows). */
export interface WaitOwner {
  readonly enrollmentId: string;
  readonly appId: string;
  readonly openid: string;
  readonly sequenceId: string;
  readonly version: number;
}

/** A wait a path reached: watching for `condition` from `startsAt` until `deadline`. */
export interface NewWait extends WaitOwner {
  /** The path the wait ends. */
  readonly path: string;
  readonly condition: WaitCondition;
  readonly startsAt: Date;
  readonly deadline: Date;
}

/** A wait as it was resolved: the path it ended, and when (the action's time, or the deadline). */
export interface ResolvedWait extends WaitOwner {
  readonly path: string;
  readonly at: Date;
}

/** An open wait of a follower, with what it watches for. */
export interface OpenWait extends NewWait {
  /** The follower's position in the list asked about. */
  readonly index: number;
}

/** Records the waits the paths just started reach (in the caller's transaction). */
export async function insertWaits(db: PoolClient, waits: readonly NewWait[]): Promise<void> {
  if (waits.length === 0) return;
  await db.query(
    `INSERT INTO journey_waits (enrollment_id, path, app_id, openid, sequence_id, version, condition, starts_at, deadline)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::int[], $7::jsonb[],
                          $8::timestamptz[], $9::timestamptz[])`,
    [
      waits.map((w) => w.enrollmentId),
      waits.map((w) => w.path),
      waits.map((w) => w.appId),
      waits.map((w) => w.openid),
      waits.map((w) => w.sequenceId),
      waits.map((w) => w.version),
      waits.map((w) => JSON.stringify(w.condition)),
      waits.map((w) => w.startsAt),
      waits.map((w) => w.deadline),
    ],
  );
}

interface WaitRow {
  enrollment_id: string;
  path: string;
  app_id: string;
  openid: string;
  sequence_id: string;
  version: number;
}

const owner = (r: WaitRow): WaitOwner & { path: string } => ({
  enrollmentId: r.enrollment_id,
  path: r.path,
  appId: r.app_id,
  openid: r.openid,
  sequenceId: r.sequence_id,
  version: r.version,
});

/**
 * The open waits of the followers that watch at `at` (started, deadline not reached), in list order.
 * Parameters: `$1 text[]` app ids, `$2 text[]` openids, `$3 timestamptz[]` times (pairwise).
 */
export async function listOpenWaits(
  db: PoolClient,
  followers: readonly { appId: string; openid: string; at: Date }[],
): Promise<OpenWait[]> {
  if (followers.length === 0) return [];
  const { rows } = await db.query<
    WaitRow & { n: number; condition: WaitCondition; starts_at: Date; deadline: Date }
  >(
    `SELECT f.n::int AS n, w.enrollment_id, w.path, w.app_id, w.openid, w.sequence_id, w.version, w.condition,
            w.starts_at, w.deadline
     FROM unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS f(app_id, openid, at, n)
     JOIN journey_waits w ON w.app_id = f.app_id AND w.openid = f.openid
     WHERE w.outcome IS NULL AND w.starts_at <= f.at AND w.deadline > f.at
     ORDER BY f.n, w.starts_at`,
    [followers.map((f) => f.appId), followers.map((f) => f.openid), followers.map((f) => f.at)],
  );
  return rows.map((r) => ({
    ...owner(r),
    index: r.n - 1,
    condition: r.condition,
    startsAt: r.starts_at,
    deadline: r.deadline,
  }));
}

/**
 * Resolves the waits `yes` at their action's time — each only if still open (an action and the timeout
 * racing for a wait: the row lock orders them, and the second finds it resolved). Returns those it
 * resolved. Locks in key order, so two transactions never wait for each other in a cycle.
 */
export async function resolveWaitsYes(
  db: PoolClient,
  waits: readonly { enrollmentId: string; path: string; at: Date }[],
): Promise<ResolvedWait[]> {
  if (waits.length === 0) return [];
  const sorted = [...waits].sort((a, b) =>
    a.enrollmentId === b.enrollmentId ? (a.path < b.path ? -1 : 1) : a.enrollmentId < b.enrollmentId ? -1 : 1,
  );
  const { rows } = await db.query<WaitRow & { resolved_at: Date }>(
    `UPDATE journey_waits w SET outcome = 'yes', resolved_at = r.at
     FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS r(enrollment_id, path, at)
     WHERE w.enrollment_id = r.enrollment_id AND w.path = r.path AND w.outcome IS NULL
     RETURNING w.enrollment_id, w.path, w.app_id, w.openid, w.sequence_id, w.version, w.resolved_at`,
    [sorted.map((w) => w.enrollmentId), sorted.map((w) => w.path), sorted.map((w) => w.at)],
  );
  return rows.map((r) => ({ ...owner(r), at: r.resolved_at }));
}

/**
 * Resolves `no` up to `limit` open waits whose deadline has passed, earliest first, skipping those another
 * transaction holds (an action taking one, another worker's pass). Each resolves at its deadline.
 */
export async function takeTimedOutWaits(db: PoolClient, limit: number): Promise<ResolvedWait[]> {
  const { rows } = await db.query<WaitRow & { resolved_at: Date }>(
    `UPDATE journey_waits w SET outcome = 'no', resolved_at = w.deadline
     FROM (SELECT enrollment_id, path FROM journey_waits
           WHERE outcome IS NULL AND deadline <= now()
           ORDER BY deadline LIMIT $1 FOR UPDATE SKIP LOCKED) due
     WHERE w.enrollment_id = due.enrollment_id AND w.path = due.path
     RETURNING w.enrollment_id, w.path, w.app_id, w.openid, w.sequence_id, w.version, w.resolved_at`,
    [limit],
  );
  return rows.map((r) => ({ ...owner(r), at: r.resolved_at }));
}

/**
 * Resolves `yes` up to `limit` open waits for a variable that their enrollment's variables give a value
 * (given before the wait started watching: a posted event's `vars` meets the waits open then itself),
 * skipping those another transaction holds. Each resolves now.
 */
export async function takeMetVariableWaits(db: PoolClient, limit: number): Promise<ResolvedWait[]> {
  const { rows } = await db.query<WaitRow & { resolved_at: Date }>(
    `UPDATE journey_waits w SET outcome = 'yes', resolved_at = now()
     FROM (SELECT v.enrollment_id, v.path FROM journey_waits v JOIN enrollments e ON e.id = v.enrollment_id
           WHERE v.outcome IS NULL AND v.condition->>'type' = 'var' AND v.starts_at <= now() AND v.deadline > now()
             AND coalesce(e.vars->>(v.condition->>'name'), '') <> ''
           ORDER BY v.starts_at LIMIT $1 FOR UPDATE OF v SKIP LOCKED) met
     WHERE w.enrollment_id = met.enrollment_id AND w.path = met.path
     RETURNING w.enrollment_id, w.path, w.app_id, w.openid, w.sequence_id, w.version, w.resolved_at`,
    [limit],
  );
  return rows.map((r) => ({ ...owner(r), at: r.resolved_at }));
}

/** Ends the open waits of these enrollments (an exit): returns how many each had. */
export async function endWaitsOfEnrollments(
  db: PoolClient,
  enrollmentIds: readonly string[],
): Promise<Map<string, number>> {
  if (enrollmentIds.length === 0) return new Map();
  const { rows } = await db.query<{ enrollment_id: string }>(
    `UPDATE journey_waits SET outcome = 'ended', resolved_at = now()
     WHERE enrollment_id = ANY($1::uuid[]) AND outcome IS NULL RETURNING enrollment_id`,
    [enrollmentIds],
  );
  const ended = new Map<string, number>();
  for (const r of rows) ended.set(r.enrollment_id, (ended.get(r.enrollment_id) ?? 0) + 1);
  return ended;
}

/** Ends the open waits of a sequence (paused or archived): returns how many. */
export async function endWaitsOfSequence(db: PoolClient, sequenceId: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE journey_waits SET outcome = 'ended', resolved_at = now() WHERE sequence_id = $1 AND outcome IS NULL`,
    [sequenceId],
  );
  return rowCount ?? 0;
}

/**
 * How long ago the deadline of the oldest open wait passed, in seconds (0 when none is overdue): what the
 * workers' timeouts pass has not caught up with. One probe of the index on open waits by deadline.
 */
export async function overdueWaitSeconds(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ s: number | null }>(
    `SELECT extract(epoch FROM now() - min(deadline))::float8 AS s
       FROM journey_waits WHERE outcome IS NULL AND deadline <= now()`,
  );
  return Math.max(0, rows[0].s ?? 0);
}
