import type { Pool } from '../../../src/db/pool';
import { createMetrics } from '../../../src/metrics';
import { createPruner, type PrunerOptions } from '../../../src/retention/pruner';
import { ensureMessagePartitions } from '../../../src/store/message-partitions';
import { silentLogger } from '../../helpers/logger';
import { messageIdSql } from '../../helpers/message-rows';

const DAY_MS = 86_400_000;

/**
 * The store tests' raw rows: messages as the worker leaves them, due and finished (last updated) `ago`
 * (or finished `finishedAgo`), each with an id carrying its due time (newMessageId's layout) and in its
 * day's partition, created if missing.
 */
export async function messageRows(
  pool: Pool,
  count: number,
  status: string,
  ago: string,
  extra: {
    openid?: string;
    cancelKey?: string;
    sequenceId?: string;
    enrollmentId?: string;
    finishedAgo?: string;
    idempotencyKeys?: boolean;
  } = {},
): Promise<string[]> {
  const { rows: due } = await pool.query<{ at: Date }>(`SELECT now() - $1::interval AS at`, [ago]);
  await ensureMessagePartitions(pool, [due[0].at], DAY_MS);
  const { rows } = await pool.query<{ id: string }>(
    `WITH r AS (
       SELECT i, ${messageIdSql('now() - $3::interval')} AS id FROM generate_series(1, $1::int) i
     ), keys AS (
       INSERT INTO message_idempotency_keys (app_id, idempotency_key, message_id)
       SELECT 'wx-retention', 'k-' || id, id FROM r WHERE $9
     )
     INSERT INTO scheduled_messages (id, due_slot, app_id, openid, channel, payload, due_at, status, updated_at,
                                     cancel_key, sequence_id, enrollment_id, idempotency_key)
     SELECT id, message_slot(id), 'wx-retention', COALESCE($4, 'o-' || i), 'custom',
            '{"msgtype":"text","text":{"content":"x"}}', now() - $3::interval, $2,
            now() - COALESCE($8, $3)::interval, $5, $6, $7, CASE WHEN $9 THEN 'k-' || id END
     FROM r RETURNING id`,
    [
      count,
      status,
      ago,
      extra.openid ?? null,
      extra.cancelKey ?? null,
      extra.sequenceId ?? null,
      extra.enrollmentId ?? null,
      extra.finishedAgo ?? null,
      extra.idempotencyKeys ?? false,
    ],
  );
  return rows.map((r) => r.id);
}

/** One delivery attempt for each message. */
export async function attemptRows(pool: Pool, ids: readonly string[]): Promise<void> {
  await pool.query(
    `INSERT INTO delivery_attempts (message_id, attempt, duration_ms, outcome, due_slot)
     SELECT id, 1, 5, 'sent', message_slot(id) FROM unnest($1::uuid[]) AS u(id)`,
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
