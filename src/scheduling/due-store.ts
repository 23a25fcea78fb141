import { type Pool, withTransaction } from '../db/pool';
import { CLAIM_LOCK_KEY, LEDGER_COVERS } from './ledger';
import type { Channel, MessageStatus } from './message-status';

/** A message the worker now owns (`sending`) and must send. */
export interface ClaimedMessage {
  readonly id: string;
  readonly appId: string;
  readonly openid: string;
  readonly channel: Channel;
  readonly payload: Record<string, unknown>;
  readonly dueAt: Date;
  /** Attempts so far, this one included. */
  readonly attempts: number;
  /** How the claim let it through: `send` (no window check), `send:window`, `send:fallback`. */
  readonly claimedAs: string;
  /** The request that scheduled it, for the logs. */
  readonly requestId: string | null;
}

export interface ClaimResult {
  readonly claimed: ClaimedMessage[];
  /** Open but not due yet (early arrival, or its account is paused): re-delay by `remainingMs`. */
  readonly early: { id: string; dueAt: Date; remainingMs: number }[];
  /** Found covered by the ledger and marked `cancelled` by this claim. */
  readonly cancelled: string[];
  /** Marked `skipped` by this claim: the follower unsubscribed, or the contact window is closed. */
  readonly skipped: { id: string; reason: string }[];
  // Every other id is gone, finished, or being sent by someone else: its wake-up is dropped.
}

/**
 * The consume-time check, one round-trip for a whole batch. It consults the ledger (covered rows become
 * `cancelled`), the account's pause (due time pushed to its end), the follower's subscription and contact
 * window, and claims what may go out (`pending|queued` → `sending`, attempts + 1):
 * - a template message, or any message of an account whose window is not checked here, is claimed;
 * - a customer-service message is claimed while the window is open and has allowance left, consuming one
 *   unit each (the follower rows are locked, in key order, so concurrent workers cannot overspend);
 * - otherwise it goes out on its template fallback, or is `skipped` (`window_closed`, `unsubscribed`);
 * - a message later than its `max_lateness_ms` is `skipped` (`stale`) instead of sent late.
 * Every status change is guarded on the latest row version, so two workers, or a worker and a
 * redelivery, can never both claim a row. Remaining waits use the database clock.
 *
 * The claim holds a shared lock on each account it claims for, taken in a statement of its own so that the
 * claim's snapshot is taken after it: a counted cancellation (`holdClaims`) waits for claims in flight and
 * holds new ones back until its ledger row is committed, so its count of what it stopped is true.
 */
export async function claimDue(
  pool: Pool,
  ids: readonly string[],
  toleranceMs: number,
  uncheckedAppIds: readonly string[],
): Promise<ClaimResult> {
  const { rows } = await withTransaction(pool, async (client) => {
    await client.query(CLAIM_LOCKS_SQL, [ids]);
    return client.query<{
      verdict: 'claimed' | 'early' | 'cancelled' | 'skipped';
      id: string;
      due_at: Date | null;
      remaining_ms: number | null;
      reason: string | null;
      app_id: string | null;
      openid: string | null;
      channel: Channel | null;
      payload: Record<string, unknown> | null;
      attempts: number | null;
      request_id: string | null;
    }>(CLAIM_SQL, [ids, toleranceMs, uncheckedAppIds]);
  });
  const result = {
    claimed: [] as ClaimedMessage[],
    early: [] as ClaimResult['early'],
    cancelled: [] as string[],
    skipped: [] as ClaimResult['skipped'],
  };
  for (const r of rows) {
    if (r.verdict === 'cancelled') result.cancelled.push(r.id);
    else if (r.verdict === 'skipped') result.skipped.push({ id: r.id, reason: r.reason! });
    else if (r.verdict === 'early')
      result.early.push({ id: r.id, dueAt: r.due_at!, remainingMs: r.remaining_ms! });
    else {
      result.claimed.push({
        id: r.id,
        appId: r.app_id!,
        openid: r.openid!,
        channel: r.channel!,
        payload: r.payload!,
        dueAt: r.due_at!,
        attempts: r.attempts!,
        claimedAs: r.reason!,
        requestId: r.request_id,
      });
    }
  }
  return result;
}

const OPEN = `m.status IN ('pending', 'queued')`;
/** Shared claim locks on the batch's accounts, in account order (a claim never waits holding a later one). */
const CLAIM_LOCKS_SQL = `
SELECT pg_advisory_xact_lock_shared(${CLAIM_LOCK_KEY('s.app_id')})
FROM (SELECT DISTINCT app_id FROM scheduled_messages WHERE id = ANY($1::uuid[]) ORDER BY app_id) s`;
const CLAIM_SQL = `
WITH cand AS (
  SELECT m.id, m.app_id, m.openid, m.channel, m.fallback IS NOT NULL AS has_fallback, m.due_at,
         m.intended_at + m.max_lateness_ms * interval '1 millisecond' < now() AS stale,
         ${LEDGER_COVERS('m')} AS covered, a.paused_until
  FROM scheduled_messages m
  LEFT JOIN account_states a ON a.app_id = m.app_id AND a.paused_until > now()
  WHERE m.id = ANY($1::uuid[]) AND ${OPEN}
), due AS (
  SELECT *, row_number() OVER (PARTITION BY app_id, openid, channel ORDER BY due_at, id) AS rank
  FROM cand WHERE NOT covered AND paused_until IS NULL AND due_at <= now() + $2 * interval '1 millisecond'
), locked AS (
  SELECT f.app_id, f.openid, f.subscribed, f.window_expires_at, f.window_remaining FROM followers f
  WHERE (f.app_id, f.openid) IN (SELECT app_id, openid FROM due)
  ORDER BY f.app_id, f.openid FOR UPDATE
), judged AS (
  SELECT d.id, d.app_id, d.openid, CASE
      WHEN d.stale THEN 'skip:stale'
      WHEN l.subscribed = false THEN 'skip:unsubscribed'
      WHEN d.channel = 'template' OR d.app_id = ANY($3::text[]) THEN 'send'
      WHEN l.window_expires_at > now() AND d.rank <= l.window_remaining THEN 'send:window'
      WHEN d.has_fallback THEN 'send:fallback'
      ELSE 'skip:window_closed' END AS verdict
  FROM due d LEFT JOIN locked l ON l.app_id = d.app_id AND l.openid = d.openid
), consumed AS (
  UPDATE followers f SET window_remaining = f.window_remaining - c.n, updated_at = now()
  FROM (SELECT app_id, openid, count(*) AS n FROM judged WHERE verdict = 'send:window' GROUP BY 1, 2) c
  WHERE f.app_id = c.app_id AND f.openid = c.openid
  RETURNING f.openid
), cancelled AS (
  UPDATE scheduled_messages m SET status = 'cancelled', status_reason = 'ledger', updated_at = now()
  FROM cand WHERE m.id = cand.id AND cand.covered AND ${OPEN}
  RETURNING m.id
), paused AS (
  UPDATE scheduled_messages m SET due_at = cand.paused_until, status = 'queued', updated_at = now()
  FROM cand WHERE m.id = cand.id AND NOT cand.covered AND cand.paused_until IS NOT NULL AND ${OPEN}
  RETURNING m.id, m.due_at
), skipped AS (
  UPDATE scheduled_messages m SET status = 'skipped', status_reason = substr(j.verdict, 6), updated_at = now()
  FROM judged j WHERE m.id = j.id AND j.verdict LIKE 'skip:%' AND ${OPEN}
  RETURNING m.id, m.status_reason
), claimed AS (
  UPDATE scheduled_messages m
  SET status = 'sending', attempts = m.attempts + 1, claimed_at = now(), updated_at = now(),
      channel = CASE WHEN j.verdict = 'send:fallback' THEN 'template' ELSE m.channel END,
      payload = CASE WHEN j.verdict = 'send:fallback' THEN m.fallback ELSE m.payload END,
      status_reason = CASE WHEN j.verdict = 'send:fallback' THEN 'fallback:window_closed' END
  FROM judged j WHERE m.id = j.id AND j.verdict LIKE 'send%' AND ${OPEN}
  RETURNING m.id, m.due_at, m.app_id, m.openid, m.channel, m.payload, m.attempts, j.verdict, m.request_id
)
SELECT 'claimed' AS verdict, id, due_at, NULL::float8 AS remaining_ms, verdict AS reason, app_id, openid, channel,
       payload, attempts, request_id FROM claimed
UNION ALL SELECT 'cancelled', id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM cancelled
UNION ALL SELECT 'skipped', id, NULL, NULL, status_reason, NULL, NULL, NULL, NULL, NULL, NULL FROM skipped
UNION ALL SELECT 'early', id, due_at, extract(epoch FROM due_at - now()) * 1000, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL FROM paused
UNION ALL SELECT 'early', id, due_at, extract(epoch FROM due_at - now()) * 1000, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL FROM cand WHERE NOT covered AND paused_until IS NULL AND due_at > now() + $2 * interval '1 millisecond'`;

/** What happened to one claimed message, to be recorded. */
export interface Outcome {
  readonly id: string;
  /** The row's next status: a final one, or `queued` again for a retry / a paused account. */
  readonly status: MessageStatus;
  readonly reason: string | null;
  /** For `queued`: the new due time. */
  readonly nextDueAt: Date | null;
  /** When the WeChat call returned. */
  readonly at: Date;
  /** The attempt to record. */
  readonly attempt: number;
  readonly errcode: number | null;
  readonly errmsg: string;
  readonly durationMs: number;
  /** Attempt label: sent, retry, failed, skipped, paused. `paused` does not count as an attempt. */
  readonly label: string;
}

/**
 * Records a batch of outcomes and their attempts in one statement. Guarded on `sending` (or `unknown`,
 * when the sweeper gave up on a send that did finish): a row is never moved back from a final state.
 */
export async function recordOutcomes(pool: Pool, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await pool.query(
    `WITH o AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[],
                            $6::int[], $7::int[], $8::text[], $9::int[], $10::text[])
         AS o(id, status, reason, next_due_at, at, attempt, errcode, errmsg, duration_ms, label)
     ), updated AS (
       UPDATE scheduled_messages m
       SET status = o.status, status_reason = o.reason, due_at = COALESCE(o.next_due_at, m.due_at),
           sent_at = CASE WHEN o.status = 'sent' THEN o.at ELSE m.sent_at END,
           attempts = CASE WHEN o.label = 'paused' THEN m.attempts - 1 ELSE m.attempts END,
           updated_at = now()
       FROM o WHERE m.id = o.id AND m.status IN ('sending', 'unknown')
       RETURNING m.id
     )
     INSERT INTO delivery_attempts (message_id, attempt, errcode, errmsg, duration_ms, outcome, created_at)
     SELECT id, attempt, errcode, errmsg, duration_ms, label, at FROM o`,
    [
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.reason),
      outcomes.map((o) => o.nextDueAt?.toISOString() ?? null),
      outcomes.map((o) => o.at.toISOString()),
      outcomes.map((o) => o.attempt),
      outcomes.map((o) => o.errcode),
      outcomes.map((o) => o.errmsg),
      outcomes.map((o) => o.durationMs),
      outcomes.map((o) => o.label),
    ],
  );
}

/** Stops sending for an account until `until` (WeChat answered 45009: daily quota reached). */
export async function pauseAccount(pool: Pool, appId: string, until: Date, reason: string): Promise<void> {
  await pool.query(
    `INSERT INTO account_states (app_id, paused_until, paused_reason) VALUES ($1, $2, $3)
     ON CONFLICT (app_id) DO UPDATE SET paused_until = GREATEST(account_states.paused_until, $2),
       paused_reason = $3, updated_at = now()`,
    [appId, until.toISOString(), reason],
  );
}

/** WeChat answered 45015 / 45047: its word beats our bookkeeping, so no more sends until the next interaction. */
export async function closeWindow(pool: Pool, appId: string, openid: string): Promise<void> {
  await pool.query(
    `UPDATE followers SET window_remaining = 0, updated_at = now() WHERE app_id = $1 AND openid = $2`,
    [appId, openid],
  );
}

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
  WHERE status = 'pending' AND updated_at < now() - $1 * interval '1 millisecond'
  ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED
), lost AS (
  SELECT id FROM scheduled_messages
  WHERE status = 'queued' AND due_at < now() - $2 * interval '1 millisecond'
    AND updated_at < now() - $2 * interval '1 millisecond'
  ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
), stranded AS (
  SELECT id FROM scheduled_messages
  WHERE $4::timestamptz IS NOT NULL AND status = 'queued'
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

/**
 * How long after a template row's claim it may still be sent again: WeChat sends one message per openid +
 * `client_msg_id` within 10 minutes of the first send, which comes after the claim. A minute is left for
 * the resend's wake-up to arrive.
 */
export const TEMPLATE_RESEND_WITHIN_MS = 9 * 60 * 1000;

/**
 * Rows stuck in `sending` longer than `timeoutMs` (the worker died mid-send). A template row claimed less
 * than TEMPLATE_RESEND_WITHIN_MS ago goes back to `queued` (returned, to be given a wake-up): it is sent
 * again with the same `client_msg_id`, which WeChat de-duplicates. Any other row may or may not have
 * reached WeChat, so it becomes `unknown` — or, for accounts that opted into at-least-once, `queued` again.
 */
export async function sweepStuckSending(
  pool: Pool,
  timeoutMs: number,
  atLeastOnceAppIds: readonly string[],
): Promise<{ unknown: number; requeued: RelayRow[] }> {
  const { rows } = await pool.query<{ id: string; due_at: Date; status: MessageStatus }>(
    `UPDATE scheduled_messages
     SET status = CASE
           WHEN app_id = ANY($2::text[]) THEN 'queued'
           WHEN channel = 'template' AND claimed_at > now() - $3 * interval '1 millisecond' THEN 'queued'
           ELSE 'unknown' END,
         status_reason = 'sending_timeout', updated_at = now()
     WHERE status = 'sending' AND claimed_at < now() - $1 * interval '1 millisecond'
     RETURNING id, due_at, status`,
    [timeoutMs, atLeastOnceAppIds, TEMPLATE_RESEND_WITHIN_MS],
  );
  return {
    unknown: rows.filter((r) => r.status === 'unknown').length,
    requeued: rows.filter((r) => r.status === 'queued').map((r) => ({ id: r.id, dueAt: r.due_at })),
  };
}
