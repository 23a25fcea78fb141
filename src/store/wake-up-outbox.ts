import type { Pool, PoolClient } from '../db/pool';
import { isOpenSql } from './message-status';
import type { RelayRow } from './relay-lease';

/** Outbox entries the relay leased, and the open messages they owe a wake-up to. */
export interface LeasedOutbox {
  readonly entryIds: number[];
  readonly rows: RelayRow[];
}

/**
 * Leases up to `limit` outbox entries older than `pendingAfterMs` ($1), skipping those another relay
 * holds, and touches them so that no other relay takes them for the next `pendingAfterMs`; returns them
 * with the messages they name that are still open (a message sent, cancelled or in `sending` since needs
 * no wake-up). An entry is only ever deleted by `clearOutbox`, once its wake-ups are confirmed.
 */
export async function leaseOutbox(pool: Pool, pendingAfterMs: number, limit: number): Promise<LeasedOutbox> {
  const { rows } = await pool.query<{ entry_id: number; id: string | null; due_at: Date | null }>(
    `WITH leased AS (
       UPDATE wake_up_outbox SET touched_at = now()
       WHERE id IN (
         SELECT id FROM wake_up_outbox WHERE touched_at < now() - $1 * interval '1 millisecond'
         ORDER BY touched_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, message_ids
     )
     SELECT l.id AS entry_id, m.id, m.due_at
     FROM leased l LEFT JOIN scheduled_messages m
       ON m.id = ANY(l.message_ids) AND m.due_slot = ANY (message_slots(l.message_ids))
      AND ${isOpenSql('m.status')}`,
    [pendingAfterMs, limit],
  );
  return {
    entryIds: [...new Set(rows.map((r) => r.entry_id))],
    rows: rows.flatMap((r) => (r.id !== null && r.due_at !== null ? [{ id: r.id, dueAt: r.due_at }] : [])),
  };
}

/** Deletes outbox entries whose wake-ups are all confirmed. */
export async function clearOutbox(db: Pool | PoolClient, entryIds: readonly number[]): Promise<void> {
  if (entryIds.length === 0) return;
  await db.query('DELETE FROM wake_up_outbox WHERE id = ANY($1::bigint[])', [entryIds]);
}

/**
 * How many outbox entries `countOwedWakeUps` reads at most: the oldest ones. While the outbox drains as it
 * should it holds a handful; during a long outage, one entry per schedule request: 100,000 cost ~40 ms to
 * read here, the 1,000,000 of an hour at 280 requests a second ~250 ms (all, unbounded). Past it, the
 * count is a floor (and oldestOwedWakeUpAgeSeconds keeps rising).
 */
export const OWED_ENTRIES_COUNTED = 100_000;

/**
 * Messages named by the outbox entries written at least $1 ms ago, over the $2 oldest. Reads only those
 * entries (wake_up_outbox_created), so a scrape costs nothing while the outbox drains as it should.
 * Exported for the test that checks what it reads.
 */
export const OWED_WAKE_UPS_SQL = `
SELECT coalesce(sum(cardinality(message_ids)), 0)::float8 AS n FROM (
  SELECT message_ids FROM wake_up_outbox WHERE created_at <= now() - $1 * interval '1 millisecond'
  ORDER BY created_at LIMIT $2) owed`;

/**
 * Messages named by the outbox entries written at least `olderThanMs` ago (0, every entry), over the
 * OWED_ENTRIES_COUNTED oldest: accepted, their wake-ups not (yet) confirmed. With RELAY_PENDING_AFTER_MS,
 * the relay's share: what the schedule path should have published by now. For the backlog gauge, tests
 * and ops.
 */
export async function countOwedWakeUps(db: Pool | PoolClient, olderThanMs = 0): Promise<number> {
  const { rows } = await db.query<{ n: number }>(OWED_WAKE_UPS_SQL, [olderThanMs, OWED_ENTRIES_COUNTED]);
  return rows[0].n;
}

/** Seconds since the oldest outbox entry was written (0 when there is none): one index probe. */
export async function oldestOwedWakeUpAgeSeconds(db: Pool | PoolClient): Promise<number> {
  const { rows } = await db.query<{ s: number | null }>(
    'SELECT extract(epoch FROM now() - min(created_at))::float8 AS s FROM wake_up_outbox',
  );
  return Math.max(0, rows[0].s ?? 0);
}
