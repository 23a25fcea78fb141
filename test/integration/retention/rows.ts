import type { Pool } from '../../../src/db/pool';
import { createMetrics } from '../../../src/metrics';
import { createPruner, type PrunerOptions } from '../../../src/retention/pruner';
import { silentLogger } from '../../helpers/logger';

/** The store tests' raw rows: messages as the worker leaves them, finished (last updated) `ago`. */
export async function messageRows(
  pool: Pool,
  count: number,
  status: string,
  ago: string,
  extra: { openid?: string; cancelKey?: string; sequenceId?: string; enrollmentId?: string } = {},
): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO scheduled_messages (app_id, openid, channel, payload, due_at, status, updated_at, cancel_key,
                                     sequence_id, enrollment_id)
     SELECT 'wx-retention', COALESCE($4, 'o-' || i), 'custom', '{"msgtype":"text","text":{"content":"x"}}',
            now() - $3::interval, $2, now() - $3::interval, $5, $6, $7
     FROM generate_series(1, $1::int) i RETURNING id`,
    [
      count,
      status,
      ago,
      extra.openid ?? null,
      extra.cancelKey ?? null,
      extra.sequenceId ?? null,
      extra.enrollmentId ?? null,
    ],
  );
  return rows.map((r) => r.id);
}

/** One delivery attempt for each message. */
export async function attemptRows(pool: Pool, ids: readonly string[]): Promise<void> {
  await pool.query(
    `INSERT INTO delivery_attempts (message_id, attempt, duration_ms, outcome)
     SELECT id, 1, 5, 'sent' FROM unnest($1::uuid[]) AS u(id)`,
    [ids],
  );
}

/** How many rows of `table` match `where`. */
export async function countRows(pool: Pool, table: string, where = 'true'): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`);
  return rows[0].n;
}

/** A pruner on the test's pool, with its own metrics; age 1 hour unless told. */
export function aPruner(pool: Pool, options: Partial<PrunerOptions> = {}) {
  const metrics = createMetrics({ pool, transportMode: 'levels' });
  const pruner = createPruner({
    pool,
    logger: silentLogger,
    metrics,
    options: {
      finishedAfterMs: 3_600_000,
      batchSize: 1000,
      intervalMs: 60_000,
      pushesKeepAtLeastMs: 0,
      ...options,
    },
  });
  /** What the pruner counted for `table` in its metrics. */
  const pruned = async (table: string) =>
    (await metrics.retentionPruned.get()).values.find((v) => v.labels.table === table)?.value ?? 0;
  return { pruner, metrics, pruned };
}
