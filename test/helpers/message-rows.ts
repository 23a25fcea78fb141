import type { Pool } from '../../src/db/pool';
import { waitFor } from './harness';

/** A scheduled message's row as the worker left it, and its delivery attempts in order. */
export interface RowState {
  row: { status: string; status_reason: string | null; attempts: number; due_at: Date };
  attempts: { errcode: number | null; outcome: string }[];
}

/** Reads a message's row and its delivery attempts. */
export async function rowOf(pool: Pool, id: string): Promise<RowState> {
  const { rows } = await pool.query<RowState['row']>(
    'SELECT status, status_reason, attempts, due_at FROM scheduled_messages WHERE id = $1',
    [id],
  );
  const attempts = await pool.query<RowState['attempts'][number]>(
    'SELECT errcode, outcome FROM delivery_attempts WHERE message_id = $1 ORDER BY id',
    [id],
  );
  return { row: rows[0], attempts: attempts.rows };
}

/** The row once it reached a final state (sent, skipped, failed, unknown…); waits up to `timeoutMs`. */
export async function settledRow(pool: Pool, id: string, timeoutMs = 10_000): Promise<RowState> {
  const final = (s: string): boolean => !['queued', 'sending'].includes(s);
  await waitFor(async () => final((await rowOf(pool, id)).row.status), timeoutMs);
  return rowOf(pool, id);
}

/**
 * SQL: a new message id (newMessageId's layout, UUIDv7-shaped) carrying the time of the timestamptz
 * expression `at`, for tests that write rows with plain SQL. Its partition: `message_slot(id)`.
 */
export const messageIdSql = (at: string): string =>
  `(lpad(to_hex((extract(epoch FROM ${at}) * 1000)::bigint), 12, '0') || '7'
    || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid`;
