import type { PoolClient } from '../db/pool';
import type { AcceptanceCounters, FollowerCounters } from '../policy/decide-slice';
import { isOpenSql, MESSAGE_STATUS, type Channel, type MessageStatus } from './message-status';
import { byIdStatement, inPartitionsOf, partitionSlotsOf } from './message-partitions';

/** One message's new state, as the claim decided it. */
export interface MessageWrite {
  readonly id: string;
  /** `sending` (claimed), `queued` (moved to `dueAt`), `skipped` or `cancelled`. */
  readonly status: MessageStatus;
  /** The `status_reason` (null for a claim on the message's own channel; kept for a move). */
  readonly reason: string | null;
  /** The new due time of a moved message; null keeps it. */
  readonly dueAt: Date | null;
  /** Claimed on its fallback: the fallback replaces its channel and payload. */
  readonly onFallback: boolean;
}

/** A claimed message as the write left it. */
export interface ClaimedRow {
  id: string;
  app_id: string;
  openid: string;
  channel: Channel;
  payload: Record<string, unknown>;
  attempts: number;
  request_id: string | null;
  due_at: Date;
}

/**
 * The claim's one write: the decided messages (each guarded on being still open), the followers' window
 * allowance and capped count, and the acceptances left. The rows were locked by CLAIM_SNAPSHOT_SQL in the
 * same transaction, so the counters are the snapshot's less what the slice spent.
 *
 * Params: `$1 uuid[] $2 text[] $3 text[] $4 timestamptz[] $5 bool[]` per message: id, status, reason, new
 * due time, on fallback; `$6 text[] $7 text[] $8 int[] $9 text[] $10 int[]` per follower: app id, openid,
 * window_remaining, capped_day, capped_sent; `$11 text[] $12 text[] $13 text[] $14 int[]` per acceptance:
 * app id, openid, template id, remaining.
 * Returns: one row per message written: id, status, and for a claimed one what to send.
 */
export const CLAIM_WRITE_SQL = `
WITH fol AS (
  UPDATE followers f SET window_remaining = u.window_remaining, capped_day = u.capped_day::date,
    capped_sent = u.capped_sent, updated_at = now()
  FROM unnest($6::text[], $7::text[], $8::int[], $9::text[], $10::int[])
    AS u(app_id, openid, window_remaining, capped_day, capped_sent)
  WHERE f.app_id = u.app_id AND f.openid = u.openid
), accepted AS (
  UPDATE notice_acceptances n SET remaining = u.remaining, updated_at = now()
  FROM unnest($11::text[], $12::text[], $13::text[], $14::int[]) AS u(app_id, openid, template_id, remaining)
  WHERE n.app_id = u.app_id AND n.openid = u.openid AND n.template_id = u.template_id
)
UPDATE scheduled_messages m SET status = d.status, due_at = COALESCE(d.due_at, m.due_at),
  status_reason = CASE WHEN d.status = '${MESSAGE_STATUS.queued}' THEN m.status_reason ELSE d.reason END,
  attempts = m.attempts + (d.status = '${MESSAGE_STATUS.sending}')::int,
  claimed_at = CASE WHEN d.status = '${MESSAGE_STATUS.sending}' THEN now() ELSE m.claimed_at END,
  channel = CASE WHEN d.on_fallback THEN m.fallback_channel ELSE m.channel END,
  payload = CASE WHEN d.on_fallback THEN m.fallback ELSE m.payload END, updated_at = now()
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::bool[])
  AS d(id, status, reason, due_at, on_fallback)
WHERE m.id = d.id AND m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')}
  AND ${isOpenSql('m.status')}
RETURNING m.id, m.status, m.app_id, m.openid, m.channel, m.attempts, m.request_id, m.due_at,
  CASE WHEN m.status = '${MESSAGE_STATUS.sending}' THEN m.payload END AS payload`;
export const claimWrite = byIdStatement('claim_write', CLAIM_WRITE_SQL);

/**
 * Runs CLAIM_WRITE_SQL. Every message must still be open (its row is locked since the read): one that
 * is not throws, and the claim's transaction rolls back whole, counters included.
 */
export async function writeClaim(
  client: PoolClient,
  messages: readonly MessageWrite[],
  followers: readonly FollowerCounters[],
  acceptances: readonly AcceptanceCounters[],
): Promise<ClaimedRow[]> {
  const { rows } = await client.query<ClaimedRow & { status: MessageStatus }>(
    claimWrite(
      [
        messages.map((m) => m.id),
        messages.map((m) => m.status),
        messages.map((m) => m.reason),
        messages.map((m) => m.dueAt),
        messages.map((m) => m.onFallback),
        followers.map((f) => f.appId),
        followers.map((f) => f.openid),
        followers.map((f) => f.windowRemaining),
        followers.map((f) => f.cappedDay),
        followers.map((f) => f.cappedSent),
        acceptances.map((a) => a.appId),
        acceptances.map((a) => a.openid),
        acceptances.map((a) => a.templateId),
        acceptances.map((a) => a.remaining),
      ],
      partitionSlotsOf(
        messages.map((m) => m.id),
        { awaitingPump: false },
      ),
    ),
  );
  if (rows.length !== messages.length)
    throw new Error(`the claim wrote ${rows.length} of ${messages.length} locked messages`);
  return rows.filter((r) => r.status === MESSAGE_STATUS.sending);
}
