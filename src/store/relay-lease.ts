import type { Pool } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';

/** A row the relay (re)publishes a wake-up for. */
export interface RelayRow {
  readonly id: string;
  readonly dueAt: Date;
}

/**
 * The relay's lease ($1 pendingAfterMs, $2 overdueAfterMs, $3 limit, $4 recovery since or null, $5 recovery
 * grace ms). One index-driven branch per kind, so that a round reads only the rows it is after, not the
 * millions queued for later: stale `pending` rows on scheduled_messages_open, overdue `queued` rows on
 * scheduled_messages_queued_due. Exported for the test that checks what it reads.
 */
export const RELAY_LEASE_SQL = `
WITH stale_pending AS (
  SELECT id FROM scheduled_messages
  WHERE status = '${MESSAGE_STATUS.pending}' AND updated_at < now() - $1 * interval '1 millisecond'
  ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED
), lost AS (
  SELECT id FROM scheduled_messages
  WHERE status = '${MESSAGE_STATUS.queued}' AND due_at < now() - $2 * interval '1 millisecond'
    AND updated_at < now() - $2 * interval '1 millisecond'
  ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
), stranded AS (
  SELECT id FROM scheduled_messages
  WHERE $4::timestamptz IS NOT NULL AND status = '${MESSAGE_STATUS.queued}'
    AND due_at < now() - $5 * interval '1 millisecond' AND updated_at < $4::timestamptz
  ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
)
UPDATE scheduled_messages SET updated_at = now()
WHERE id IN (
  SELECT id FROM (SELECT id FROM stale_pending UNION SELECT id FROM lost UNION SELECT id FROM stranded) u
  LIMIT $3)
RETURNING id, due_at`;

/**
 * Leases up to `limit` rows that need a wake-up published: `pending` rows older than `pendingAfterMs`
 * (the api crashed or the broker was down between commit and confirm) and `queued` rows overdue by more
 * than `overdueAfterMs` (a lost wake-up). With `recovery` (the broker came back at `since`), also `queued`
 * rows overdue by more than `recovery.graceMs` that nobody touched since then: their wake-up was
 * published before the outage and may be stranded in the broker (see relay.ts). The lease
 * (updated_at = now) keeps other relays off them, and gives each row one such recovery wake-up.
 */
export async function leaseForRelay(
  pool: Pool,
  opts: {
    pendingAfterMs: number;
    overdueAfterMs: number;
    limit: number;
    recovery?: { since: Date; graceMs: number } | null;
  },
): Promise<RelayRow[]> {
  const { rows } = await pool.query<{ id: string; due_at: Date }>(RELAY_LEASE_SQL, [
    opts.pendingAfterMs,
    opts.overdueAfterMs,
    opts.limit,
    opts.recovery?.since.toISOString() ?? null,
    opts.recovery?.graceMs ?? 0,
  ]);
  return rows.map((r) => ({ id: r.id, dueAt: r.due_at }));
}
