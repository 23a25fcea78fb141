import type { PoolClient } from '../db/pool';

/** An enrollment to record: `dedupe` is what makes a second one for the same follower and trigger a no-op. */
export interface NewEnrollment {
  readonly appId: string;
  readonly openid: string;
  readonly sequenceId: string;
  readonly version: number;
  /** The openid (once per follower) or the push's key (once per trigger). */
  readonly dedupe: string;
}

/** Records an enrollment once; returns its id, or null when its dedupe key was enrolled already. */
export async function insertEnrollment(
  client: PoolClient,
  enrollment: NewEnrollment,
): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO enrollments (app_id, openid, sequence_id, version, dedupe) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (sequence_id, dedupe) DO NOTHING RETURNING id`,
    [enrollment.appId, enrollment.openid, enrollment.sequenceId, enrollment.version, enrollment.dedupe],
  );
  return rows[0]?.id ?? null;
}
