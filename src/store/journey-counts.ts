import type { Pool } from '../db/pool';
import type { JourneyVersion } from './sequence-store';

/** A sequence's enrollments per version, and its journey waits per version, path and state. */
export interface JourneyCounts {
  readonly versions: readonly JourneyVersion[];
  /** Enrollments by version. */
  readonly enrolled: ReadonlyMap<number, number>;
  /** Waits by version, path and state (`waiting` for one still open, else its outcome). */
  readonly waits: readonly { version: number; path: string; state: string; n: number }[];
}

/** The counts a sequence's per-path results are built from: three statements, one per table. */
export async function journeyCounts(pool: Pool, sequenceId: string): Promise<JourneyCounts> {
  const [versions, enrolled, waits] = await Promise.all([
    pool.query<JourneyVersion>(
      `SELECT sequence_id AS "sequenceId", version, trigger, steps, wait, paths, goal
       FROM sequence_versions WHERE sequence_id = $1 ORDER BY version`,
      [sequenceId],
    ),
    pool.query<{ version: number; n: number }>(
      `SELECT version, count(*)::int AS n FROM enrollments WHERE sequence_id = $1 GROUP BY version`,
      [sequenceId],
    ),
    pool.query<{ version: number; path: string; state: string; n: number }>(
      `SELECT version, path, coalesce(outcome, 'waiting') AS state, count(*)::int AS n
       FROM journey_waits WHERE sequence_id = $1 GROUP BY 1, 2, 3`,
      [sequenceId],
    ),
  ]);
  return {
    versions: versions.rows,
    enrolled: new Map(enrolled.rows.map((r) => [r.version, r.n])),
    waits: waits.rows,
  };
}
