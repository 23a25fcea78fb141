import { type Pool, withTransaction } from '../db/pool';
import { ensureMessagePartitions } from './message-partitions';
import { MESSAGE_STATUS } from './message-status';
import type { RelayRow } from './relay-lease';

/** The advisory lock that keeps the horizon pump to one process at a time (per schema, as the pruner's). */
const PUMP_LOCK_KEY = `hashtext('wechat-drip-horizon-pump:' || current_schema())`;

/** What one pump batch did. */
export interface PumpedBatch {
  /** Rows it moved out of the later partition into their days (cancelled ones too). */
  readonly moved: number;
  /** The outbox entry owing `rows` their wake-ups; null when none of them is queued. */
  readonly outboxId: number | null;
  /** The queued rows among them. */
  readonly rows: RelayRow[];
}

/** The rows awaiting the pump: the later partition, and the legacy one (rows from before 0029). */
const AWAITING = `awaiting_pump AND due_slot IN ('infinity', '-infinity')`;

/**
 * Moves up to `limit` rows awaiting the pump and due within `horizonMs`, earliest first, in one
 * transaction: each goes into its day (the partition its id names, created first if it is missing — a
 * row the pump reaches late may name a past day; `partitionMs` wide), and one outbox entry names those
 * still queued. The caller publishes their wake-ups and clears the entry (a crash in between leaves the
 * entry to the relay, so a batch is published again at most, and the worker's claim sends nothing twice).
 * A cancelled row moves as well, without a wake-up, so that its day's retention takes it. Rows from
 * before partitioning stay in the legacy partition. Null when another process's pump holds the lock.
 */
export async function pumpIntoOutbox(
  pool: Pool,
  horizonMs: number,
  partitionMs: number,
  limit: number,
): Promise<PumpedBatch | null> {
  return withTransaction(pool, async (tx) => {
    const lock = await tx.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_xact_lock(${PUMP_LOCK_KEY}) AS locked`,
    );
    if (!lock.rows[0].locked) return null;
    const entering = await tx.query<{ id: string; slot: Date | null }>(
      `SELECT id, message_slot(id) AS slot FROM scheduled_messages
        WHERE ${AWAITING} AND due_at <= now() + $1::float8 * interval '1 millisecond'
        ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [horizonMs, limit],
    );
    if (entering.rows.length === 0) return { moved: 0, outboxId: null, rows: [] };
    const slots = entering.rows.flatMap((r) => (r.slot ? [r.slot.getTime()] : []));
    const days = [...new Set(slots.map((t) => t - (t % partitionMs)))].map((t) => new Date(t));
    await ensureMessagePartitions(tx, days, partitionMs);
    const ids = entering.rows.map((r) => r.id);
    const { rows } = await tx.query<{ id: string; due_at: Date; outbox_id: number | null }>(
      `WITH moved AS (
         UPDATE scheduled_messages m SET awaiting_pump = false,
           due_slot = CASE WHEN m.due_slot = '-infinity' THEN m.due_slot ELSE message_slot(m.id) END
         WHERE m.id = ANY($1::uuid[]) AND m.${AWAITING}
         RETURNING m.id, m.due_at, m.status
       ), queued AS (
         SELECT id, due_at FROM moved WHERE status = '${MESSAGE_STATUS.queued}'
       ), outbox AS (
         INSERT INTO wake_up_outbox (message_ids) SELECT array_agg(id) FROM queued HAVING count(*) > 0
         RETURNING id
       )
       SELECT queued.id, queued.due_at, (SELECT id FROM outbox) AS outbox_id FROM queued`,
      [ids],
    );
    return {
      moved: ids.length,
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
       FROM scheduled_messages WHERE ${AWAITING}`,
    [horizonMs],
  );
  return Math.max(0, rows[0].s ?? 0);
}
