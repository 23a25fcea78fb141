import type { Pool } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';

/** A row the relay (re)publishes a wake-up for. */
export interface RelayRow {
  readonly id: string;
  readonly dueAt: Date;
}

/** Rows with a wake-up owed by the relay: not those awaiting the pump (the later partition, legacy rows). */
const OWNED = `due_slot < 'infinity' AND NOT awaiting_pump`;

/**
 * The relay's lease of `queued` rows whose wake-up may be gone ($1 overdueAfterMs, $2 limit, $3 recovery
 * since or null, $4 recovery grace ms). Index-driven (scheduled_messages_queued_due), so that a round reads
 * only the overdue rows, not the millions queued for later. Exported for the test that checks what it reads.
 */
export const RELAY_LEASE_SQL = `
WITH lost AS (
  SELECT id FROM scheduled_messages
  WHERE ${OWNED} AND status = '${MESSAGE_STATUS.queued}' AND due_at < now() - $1 * interval '1 millisecond'
    AND updated_at < now() - $1 * interval '1 millisecond'
  ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED
), stranded AS (
  SELECT id FROM scheduled_messages
  WHERE $3::timestamptz IS NOT NULL AND ${OWNED} AND status = '${MESSAGE_STATUS.queued}'
    AND due_at < now() - $4 * interval '1 millisecond' AND updated_at < $3::timestamptz
  ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED
)
UPDATE scheduled_messages SET updated_at = now()
WHERE ${OWNED} AND id IN (SELECT id FROM (SELECT id FROM lost UNION SELECT id FROM stranded) u LIMIT $2)
RETURNING id, due_at`;

/**
 * Leases up to `limit` `queued` rows overdue by more than `overdueAfterMs` (a lost wake-up). With
 * `recovery` (the broker came back at `since`), also `queued` rows overdue by more than
 * `recovery.graceMs` that nobody touched since then: their wake-up was published before the outage and
 * may be stranded in the broker (see relay.ts). The lease (updated_at = now) keeps other relays off them,
 * and gives each row one such recovery wake-up.
 */
export async function leaseForRelay(
  pool: Pool,
  opts: {
    overdueAfterMs: number;
    limit: number;
    recovery?: { since: Date; graceMs: number } | null;
  },
): Promise<RelayRow[]> {
  const { rows } = await pool.query<{ id: string; due_at: Date }>(RELAY_LEASE_SQL, [
    opts.overdueAfterMs,
    opts.limit,
    opts.recovery?.since.toISOString() ?? null,
    opts.recovery?.graceMs ?? 0,
  ]);
  return rows.map((r) => ({ id: r.id, dueAt: r.due_at }));
}
