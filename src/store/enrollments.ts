import type { Pool, PoolClient } from '../db/pool';

/** An enrollment to record: `dedupe` is what makes a second one for the same follower and trigger a no-op. */
export interface NewEnrollment {
  readonly appId: string;
  readonly openid: string;
  readonly sequenceId: string;
  readonly version: number;
  /** The openid (once per follower) or the push's key (once per trigger). */
  readonly dedupe: string;
  /** The variables it was given (the API's enrollments), for the paths it starts later. */
  readonly vars: Readonly<Record<string, string>>;
}

/**
 * Records enrollments, each once, in one statement: returns each one's id, or null when its dedupe key was
 * enrolled already (or comes earlier in the list). Inserted in key order, so that two batches never wait
 * for each other in a cycle.
 */
export async function insertEnrollments(
  client: PoolClient,
  enrollments: readonly NewEnrollment[],
): Promise<(string | null)[]> {
  const keyOf = (e: NewEnrollment) => `${e.sequenceId}\u0000${e.dedupe}`;
  const first = new Map<string, NewEnrollment>();
  for (const e of enrollments) if (!first.has(keyOf(e))) first.set(keyOf(e), e);
  const rows = [...first.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  const inserted = await client.query<{ id: string; sequence_id: string; dedupe: string }>(
    `INSERT INTO enrollments (app_id, openid, sequence_id, version, dedupe, vars)
     SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[], $5::text[], $6::jsonb[])
     ON CONFLICT (sequence_id, dedupe) DO NOTHING RETURNING id, sequence_id, dedupe`,
    [
      rows.map((e) => e.appId),
      rows.map((e) => e.openid),
      rows.map((e) => e.sequenceId),
      rows.map((e) => e.version),
      rows.map((e) => e.dedupe),
      rows.map((e) => JSON.stringify(e.vars)),
    ],
  );
  const ids = new Map(inserted.rows.map((r) => [`${r.sequence_id}\u0000${r.dedupe}`, r.id]));
  return enrollments.map((e) => (first.get(keyOf(e)) === e ? (ids.get(keyOf(e)) ?? null) : null));
}

/** The enrollments some dedupe keys made in a sequence, by key, each with its steps' rows in step order. */
export async function findEnrollments(
  db: Pool | PoolClient,
  sequenceId: string,
  dedupes: readonly string[],
): Promise<Map<string, { id: string; messages: { id: string; stepIndex: number; dueAt: Date }[] }>> {
  const found = new Map<string, { id: string; messages: { id: string; stepIndex: number; dueAt: Date }[] }>();
  if (dedupes.length === 0) return found;
  const { rows } = await db.query<{
    id: string;
    dedupe: string;
    message_id: string | null;
    step_index: number;
    due_at: Date;
  }>(
    `SELECT e.id, e.dedupe, m.id AS message_id, m.step_index, m.due_at
     FROM enrollments e LEFT JOIN scheduled_messages m ON m.enrollment_id = e.id
     WHERE e.sequence_id = $1 AND e.dedupe = ANY($2::text[]) ORDER BY e.dedupe, m.step_index`,
    [sequenceId, dedupes],
  );
  for (const r of rows) {
    const entry = found.get(r.dedupe) ?? { id: r.id, messages: [] };
    if (r.message_id !== null)
      entry.messages.push({ id: r.message_id, stepIndex: r.step_index, dueAt: r.due_at });
    found.set(r.dedupe, entry);
  }
  return found;
}

/** The variables of these enrollments, by id (`{}` for one started by a push). */
export async function findEnrollmentVars(
  db: PoolClient,
  ids: readonly string[],
): Promise<Map<string, Record<string, string>>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; vars: Record<string, string> }>(
    `SELECT id, vars FROM enrollments WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.vars]));
}

/**
 * Merges `vars` into the variables of every enrollment of the follower in the account (a posted event's
 * `vars`, in its transaction); returns how many it changed.
 */
export async function mergeEnrollmentVars(
  db: PoolClient,
  follower: { appId: string; openid: string },
  vars: Readonly<Record<string, string>>,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE enrollments SET vars = vars || $3::jsonb WHERE app_id = $1 AND openid = $2`,
    [follower.appId, follower.openid, JSON.stringify(vars)],
  );
  return rowCount ?? 0;
}
