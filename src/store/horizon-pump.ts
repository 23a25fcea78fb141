import { type Pool, withTransaction } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';
import type { RelayRow } from './relay-lease';

/** The advisory lock that keeps the horizon pump to one process at a time (per schema, as the pruner's). */
const PUMP_LOCK_KEY = `hashtext('wechat-drip-horizon-pump:' || current_schema())`;

/** Rows the pump moved into the outbox: their wake-ups are owed by `outboxId`. */
export interface PumpedBatch {
  readonly outboxId: number | null;
  readonly rows: RelayRow[];
}

/**
 * Moves up to `limit` rows awaiting the pump and due within `horizonMs` into the outbox, earliest first,
 * in one transaction: one outbox entry names them, and they no longer await the pump. The caller
 * publishes their wake-ups and clears the entry (a crash in between leaves the entry to the relay, so a
 * batch is published again at most, and the worker's claim sends nothing twice). Null when another
 * process's pump holds the lock.
 */
export async function pumpIntoOutbox(
  pool: Pool,
  horizonMs: number,
  limit: number,
): Promise<PumpedBatch | null> {
  return withTransaction(pool, async (tx) => {
    const lock = await tx.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_xact_lock(${PUMP_LOCK_KEY}) AS locked`,
    );
    if (!lock.rows[0].locked) return null;
    const { rows } = await tx.query<{ id: string; due_at: Date; outbox_id: number | null }>(
      `WITH entering AS (
         SELECT id FROM scheduled_messages
         WHERE awaiting_pump AND status = '${MESSAGE_STATUS.queued}'
           AND due_at <= now() + $1::float8 * interval '1 millisecond'
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), moved AS (
         UPDATE scheduled_messages m SET awaiting_pump = false FROM entering e WHERE m.id = e.id
         RETURNING m.id, m.due_at
       ), outbox AS (
         INSERT INTO wake_up_outbox (message_ids) SELECT array_agg(id) FROM moved HAVING count(*) > 0
         RETURNING id
       )
       SELECT moved.id, moved.due_at, (SELECT id FROM outbox) AS outbox_id FROM moved`,
      [horizonMs, limit],
    );
    return {
      outboxId: rows[0]?.outbox_id ?? null,
      rows: rows.map((r) => ({ id: r.id, dueAt: r.due_at })),
    };
  });
}

/**
 * How far the pump is behind, in seconds: the horizon's end (now + `horizonMs`) minus the due time of the
 * earliest row still awaiting the pump; 0 when none is due within the horizon. One index probe.
 */
export async function horizonPumpLagSeconds(pool: Pool, horizonMs: number): Promise<number> {
  const { rows } = await pool.query<{ s: number | null }>(
    `SELECT extract(epoch FROM now() + $1::float8 * interval '1 millisecond' - min(due_at))::float8 AS s
       FROM scheduled_messages WHERE awaiting_pump AND status = '${MESSAGE_STATUS.queued}'`,
    [horizonMs],
  );
  return Math.max(0, rows[0].s ?? 0);
}
