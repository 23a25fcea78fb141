import type { Pool, PoolClient } from '../db/pool';

/**
 * A last-chance step as scheduled for one enrollment: its message (the current one: a move replaces it),
 * when it is due, and the content a move schedules again.
 */
export interface NewLastChance {
  readonly enrollmentId: string;
  readonly stepIndex: number;
  readonly appId: string;
  readonly openid: string;
  readonly sequenceId: string;
  readonly version: number;
  readonly variant: string | null;
  readonly beforeCloseMs: number;
  readonly messageId: string;
  readonly dueAt: Date;
  readonly payload: Record<string, unknown>;
  readonly fallback: Record<string, unknown> | null;
  readonly fallbackChannel: 'template' | 'notice' | null;
  readonly maxLatenessMs: number | null;
}

/** An open last-chance step of a follower, with the follower's position in the list asked about. */
export interface OpenLastChance extends NewLastChance {
  readonly index: number;
  readonly moves: number;
  /** When the follower's newest recorded interaction was (null: none): an older one moves nothing. */
  readonly windowOpenedAt: Date | null;
}

/** Records the last-chance steps of the paths just planned (in the caller's transaction). */
export async function insertLastChances(db: PoolClient, steps: readonly NewLastChance[]): Promise<void> {
  if (steps.length === 0) return;
  await db.query(
    `INSERT INTO last_chance_steps (enrollment_id, step_index, app_id, openid, sequence_id, version, variant,
                                    before_close_ms, message_id, due_at, payload, fallback, fallback_channel,
                                    max_lateness_ms)
     SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::uuid[], $6::int[], $7::text[],
                          $8::bigint[], $9::uuid[], $10::timestamptz[], $11::jsonb[], $12::jsonb[], $13::text[],
                          $14::int[])`,
    [
      steps.map((s) => s.enrollmentId),
      steps.map((s) => s.stepIndex),
      steps.map((s) => s.appId),
      steps.map((s) => s.openid),
      steps.map((s) => s.sequenceId),
      steps.map((s) => s.version),
      steps.map((s) => s.variant),
      steps.map((s) => s.beforeCloseMs),
      steps.map((s) => s.messageId),
      steps.map((s) => s.dueAt),
      steps.map((s) => JSON.stringify(s.payload)),
      steps.map((s) => (s.fallback ? JSON.stringify(s.fallback) : null)),
      steps.map((s) => s.fallbackChannel),
      steps.map((s) => s.maxLatenessMs),
    ],
  );
}

interface Row {
  index: number;
  enrollment_id: string;
  step_index: number;
  app_id: string;
  openid: string;
  sequence_id: string;
  version: number;
  variant: string | null;
  before_close_ms: string;
  message_id: string;
  due_at: Date;
  payload: Record<string, unknown>;
  fallback: Record<string, unknown> | null;
  fallback_channel: 'template' | 'notice' | null;
  max_lateness_ms: number | null;
  moves: number;
  window_opened_at: Date | null;
}

/**
 * The open last-chance steps of the followers, in list order, with when each follower last interacted
 * (a plain read: no follower row is locked). Parameters: `$1 text[]` app ids, `$2 text[]`
 * openids (pairwise).
 */
export async function listOpenLastChances(
  db: PoolClient,
  followers: readonly { appId: string; openid: string }[],
): Promise<OpenLastChance[]> {
  if (followers.length === 0) return [];
  const { rows } = await db.query<Row>(
    `SELECT f.n - 1 AS index, s.*, fo.window_opened_at
     FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS f(app_id, openid, n)
     JOIN last_chance_steps s ON s.app_id = f.app_id AND s.openid = f.openid AND s.settled_at IS NULL
     LEFT JOIN followers fo ON fo.app_id = f.app_id AND fo.openid = f.openid
     ORDER BY f.n, s.step_index`,
    [followers.map((f) => f.appId), followers.map((f) => f.openid)],
  );
  return rows.map((r) => ({
    index: Number(r.index),
    enrollmentId: r.enrollment_id,
    stepIndex: r.step_index,
    appId: r.app_id,
    openid: r.openid,
    sequenceId: r.sequence_id,
    version: r.version,
    variant: r.variant,
    beforeCloseMs: Number(r.before_close_ms),
    messageId: r.message_id,
    dueAt: r.due_at,
    payload: r.payload,
    fallback: r.fallback,
    fallbackChannel: r.fallback_channel,
    maxLatenessMs: r.max_lateness_ms,
    moves: r.moves,
    windowOpenedAt: r.window_opened_at,
  }));
}

/** Points each moved step at its new message and due time, counting the move. */
export async function recordMoves(
  db: PoolClient,
  moves: readonly { enrollmentId: string; stepIndex: number; messageId: string; dueAt: Date }[],
): Promise<void> {
  if (moves.length === 0) return;
  await db.query(
    `UPDATE last_chance_steps s SET message_id = m.message_id, due_at = m.due_at, moves = s.moves + 1
     FROM unnest($1::uuid[], $2::int[], $3::uuid[], $4::timestamptz[]) AS m(enrollment_id, step_index, message_id, due_at)
     WHERE s.enrollment_id = m.enrollment_id AND s.step_index = m.step_index`,
    [
      moves.map((m) => m.enrollmentId),
      moves.map((m) => m.stepIndex),
      moves.map((m) => m.messageId),
      moves.map((m) => m.dueAt),
    ],
  );
}

/**
 * Settles steps there is nothing more to do for: `recoveredAt` set when the follower interacted after the
 * step was sent, null when it will not be sent (cancelled, skipped, failed).
 */
export async function settleLastChances(
  db: PoolClient,
  settled: readonly { enrollmentId: string; stepIndex: number; at: Date; recovered: boolean }[],
): Promise<void> {
  if (settled.length === 0) return;
  await db.query(
    `UPDATE last_chance_steps s SET settled_at = m.at, recovered_at = CASE WHEN m.recovered THEN m.at END
     FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::bool[]) AS m(enrollment_id, step_index, at, recovered)
     WHERE s.enrollment_id = m.enrollment_id AND s.step_index = m.step_index AND s.settled_at IS NULL`,
    [
      settled.map((m) => m.enrollmentId),
      settled.map((m) => m.stepIndex),
      settled.map((m) => m.at),
      settled.map((m) => m.recovered),
    ],
  );
}

/** Per step number of a sequence's last-chance steps: how often interactions moved it, and how many it recovered. */
export async function countLastChances(
  db: Pool,
  sequenceId: string,
): Promise<Map<number, { moved: number; recovered: number }>> {
  const { rows } = await db.query<{ step_index: number; moved: string; recovered: string }>(
    `SELECT step_index, sum(moves) AS moved, count(recovered_at) AS recovered
     FROM last_chance_steps WHERE sequence_id = $1 GROUP BY step_index`,
    [sequenceId],
  );
  return new Map(rows.map((r) => [r.step_index, { moved: Number(r.moved), recovered: Number(r.recovered) }]));
}

/** The status reason of a last-chance step's message that an interaction replaced (results leave it out). */
export const MOVED_REASON = 'moved:window';
