import { type Pool, withTransaction } from '../db/pool';
import { ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER, CLAIM_LOCK_KEY, LEDGER_COVERS } from './ledger';
import { type Channel, isOpenSql, MESSAGE_STATUS } from './message-status';
import type { Message } from './message-store';
import { SEND_RATE_HORIZON_MS } from './send-pacing';

/** Why the claim re-delays a message: not due yet (or its account paused), or its account's rate is taken. */
export const EARLY_REASON = { notDue: 'early', sendRate: 'send_rate' } as const;
export type EarlyReason = (typeof EARLY_REASON)[keyof typeof EARLY_REASON];

/** How the claim let a message through. */
export const CLAIMED_AS = { unchecked: 'send', window: 'send:window', fallback: 'send:fallback' } as const;
export type ClaimedAs = (typeof CLAIMED_AS)[keyof typeof CLAIMED_AS];

/** Why the claim skipped a message (its `status_reason`). */
export const CLAIM_SKIP_REASON = {
  stale: 'stale',
  unsubscribed: 'unsubscribed',
  windowClosed: 'window_closed',
  accountDisabled: 'account_disabled',
} as const;
export type ClaimSkipReason = (typeof CLAIM_SKIP_REASON)[keyof typeof CLAIM_SKIP_REASON];

/** Which list of ClaimResult a row of the claim's result belongs to. */
const CLAIM_ROW = { claimed: 'claimed', early: 'early', cancelled: 'cancelled', skipped: 'skipped' } as const;
type ClaimRow = (typeof CLAIM_ROW)[keyof typeof CLAIM_ROW];

/** A skip verdict inside the claim: `skip:` and the reason, which the `skipped` step cuts off (substr 6). */
const skip = (reason: ClaimSkipReason): string => `skip:${reason}`;

/** A message the worker now owns (`sending`) and must send. */
export interface ClaimedMessage extends Pick<
  Message,
  'id' | 'appId' | 'openid' | 'channel' | 'payload' | 'dueAt'
> {
  /** Attempts so far, this one included. */
  readonly attempts: number;
  /** How the claim let it through: `send` (no window check), `send:window`, `send:fallback`. */
  readonly claimedAs: ClaimedAs;
  /** The request that scheduled it, for the logs. */
  readonly requestId: string | null;
}

/** What the claim did with a batch of wake-ups, by kind. */
export interface ClaimResult {
  readonly claimed: ClaimedMessage[];
  /**
   * Re-delay by `remainingMs`: not due yet (early arrival, or its account is paused), or due while its
   * account's send rate is reserved further ahead than the horizon (`send_rate`; spread at the rate).
   */
  readonly early: { id: string; dueAt: Date; remainingMs: number; reason: EarlyReason }[];
  /** Found covered by the ledger and marked `cancelled` by this claim. */
  readonly cancelled: string[];
  /** Marked `skipped` by this claim: account disabled, stale, follower unsubscribed, or window closed. */
  readonly skipped: { id: string; reason: ClaimSkipReason }[];
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
 * - a message later than its `max_lateness_ms` is `skipped` (`stale`) instead of sent late;
 * - a message of a disabled account (`enabled: false`) is `skipped` (`account_disabled`) once due.
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
      verdict: ClaimRow;
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
    if (r.verdict === CLAIM_ROW.cancelled) result.cancelled.push(r.id);
    else if (r.verdict === CLAIM_ROW.skipped)
      result.skipped.push({ id: r.id, reason: r.reason as ClaimSkipReason });
    else if (r.verdict === CLAIM_ROW.early)
      result.early.push({
        id: r.id,
        dueAt: r.due_at!,
        remainingMs: Number(r.remaining_ms),
        reason: r.reason === EARLY_REASON.sendRate ? EARLY_REASON.sendRate : EARLY_REASON.notDue,
      });
    else {
      result.claimed.push({
        id: r.id,
        appId: r.app_id!,
        openid: r.openid!,
        channel: r.channel!,
        payload: r.payload!,
        dueAt: r.due_at!,
        attempts: r.attempts!,
        claimedAs: r.reason as ClaimedAs,
        requestId: r.request_id,
      });
    }
  }
  return result;
}

const OPEN = isOpenSql('m.status');
/** Shared claim locks on the batch's accounts, in account order (a claim never waits holding a later one). */
const CLAIM_LOCKS_SQL = `
SELECT pg_advisory_xact_lock_shared(${CLAIM_LOCK_KEY('s.app_id')}) FROM ${ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER} s`;
/**
 * The claim: one statement, one round-trip for a whole batch of wake-ups (see `claimDue` for what it
 * decides). Run after CLAIM_LOCKS_SQL in the same transaction.
 *
 * Parameters:
 * - `$1 uuid[]`  the ids of the batch's wake-ups;
 * - `$2 int`     tolerance (ms): a row due within it counts as due now;
 * - `$3 text[]`  accounts whose contact window is not checked here (every message of theirs is `send`).
 *
 * Result, one row per open id of the batch, `verdict` saying which list of ClaimResult it belongs to:
 * - `claimed`:   id, due_at, reason (`send` | `send:window` | `send:fallback`), app_id, openid, channel,
 *                payload, attempts (this one included), request_id;
 * - `cancelled`: id (covered by the ledger, now `cancelled`);
 * - `skipped`:   id, reason (`account_disabled` | `stale` | `unsubscribed` | `window_closed`);
 * - `early`:     id, due_at, remaining_ms (not due yet, or its account is paused until due_at).
 * Ids absent from the result are gone, finished, or being sent by someone else.
 */
const CLAIM_SQL = `
WITH cand AS (
  SELECT m.id, m.app_id, m.openid, m.channel, m.fallback IS NOT NULL AS has_fallback, m.due_at,
         m.intended_at + m.max_lateness_ms * interval '1 millisecond' < now() AS stale,
         ${LEDGER_COVERS('m')} AS covered, a.paused_until, acc.enabled IS FALSE AS disabled,
         sp.next_at AS rate_busy_until, acc.send_rate_per_second AS rate
  FROM scheduled_messages m
  LEFT JOIN account_states a ON a.app_id = m.app_id AND a.paused_until > now()
  LEFT JOIN accounts acc ON acc.app_id = m.app_id
  LEFT JOIN send_pacing sp ON sp.app_id = m.app_id
    AND sp.next_at > now() + ${SEND_RATE_HORIZON_MS} * interval '1 millisecond'
  WHERE m.id = ANY($1::uuid[]) AND ${OPEN}
), due AS (
  SELECT *, row_number() OVER (PARTITION BY app_id, openid, channel ORDER BY due_at, id) AS rank
  FROM cand WHERE NOT covered AND paused_until IS NULL AND rate_busy_until IS NULL
    AND due_at <= now() + $2 * interval '1 millisecond'
), locked AS (
  SELECT f.app_id, f.openid, f.subscribed, f.window_expires_at, f.window_remaining FROM followers f
  WHERE (f.app_id, f.openid) IN (SELECT app_id, openid FROM due)
  ORDER BY f.app_id, f.openid FOR UPDATE
), judged AS (
  SELECT d.id, d.app_id, d.openid, CASE
      WHEN d.disabled THEN '${skip(CLAIM_SKIP_REASON.accountDisabled)}'
      WHEN d.stale THEN '${skip(CLAIM_SKIP_REASON.stale)}'
      WHEN l.subscribed = false THEN '${skip(CLAIM_SKIP_REASON.unsubscribed)}'
      WHEN d.channel = 'template' OR d.app_id = ANY($3::text[]) THEN '${CLAIMED_AS.unchecked}'
      WHEN l.window_expires_at > now() AND d.rank <= l.window_remaining THEN '${CLAIMED_AS.window}'
      WHEN d.has_fallback THEN '${CLAIMED_AS.fallback}'
      ELSE '${skip(CLAIM_SKIP_REASON.windowClosed)}' END AS verdict
  FROM due d LEFT JOIN locked l ON l.app_id = d.app_id AND l.openid = d.openid
), consumed AS (
  UPDATE followers f SET window_remaining = f.window_remaining - c.n, updated_at = now()
  FROM (SELECT app_id, openid, count(*) AS n FROM judged WHERE verdict = '${CLAIMED_AS.window}' GROUP BY 1, 2) c
  WHERE f.app_id = c.app_id AND f.openid = c.openid
  RETURNING f.openid
), cancelled AS (
  UPDATE scheduled_messages m SET status = '${MESSAGE_STATUS.cancelled}', status_reason = 'ledger', updated_at = now()
  FROM cand WHERE m.id = cand.id AND cand.covered AND ${OPEN}
  RETURNING m.id
), paused AS (
  UPDATE scheduled_messages m SET due_at = cand.paused_until, status = '${MESSAGE_STATUS.queued}', updated_at = now()
  FROM cand WHERE m.id = cand.id AND NOT cand.covered AND cand.paused_until IS NOT NULL AND ${OPEN}
  RETURNING m.id, m.due_at
), skipped AS (
  UPDATE scheduled_messages m SET status = '${MESSAGE_STATUS.skipped}', status_reason = substr(j.verdict, 6), updated_at = now()
  FROM judged j WHERE m.id = j.id AND j.verdict LIKE 'skip:%' AND ${OPEN}
  RETURNING m.id, m.status_reason
), claimed AS (
  UPDATE scheduled_messages m
  SET status = '${MESSAGE_STATUS.sending}', attempts = m.attempts + 1, claimed_at = now(), updated_at = now(),
      channel = CASE WHEN j.verdict = '${CLAIMED_AS.fallback}' THEN 'template' ELSE m.channel END,
      payload = CASE WHEN j.verdict = '${CLAIMED_AS.fallback}' THEN m.fallback ELSE m.payload END,
      status_reason = CASE WHEN j.verdict = '${CLAIMED_AS.fallback}' THEN 'fallback:${CLAIM_SKIP_REASON.windowClosed}' END
  FROM judged j WHERE m.id = j.id AND j.verdict LIKE 'send%' AND ${OPEN}
  RETURNING m.id, m.due_at, m.app_id, m.openid, m.channel, m.payload, m.attempts, j.verdict, m.request_id
)
SELECT '${CLAIM_ROW.claimed}' AS verdict, id, due_at, NULL::float8 AS remaining_ms, verdict AS reason, app_id, openid, channel,
       payload, attempts, request_id FROM claimed
UNION ALL SELECT '${CLAIM_ROW.cancelled}', id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM cancelled
UNION ALL SELECT '${CLAIM_ROW.skipped}', id, NULL, NULL, status_reason, NULL, NULL, NULL, NULL, NULL, NULL FROM skipped
UNION ALL SELECT '${CLAIM_ROW.early}', id, due_at, extract(epoch FROM due_at - now()) * 1000, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL FROM paused
UNION ALL SELECT '${CLAIM_ROW.early}', id, due_at, extract(epoch FROM due_at - now()) * 1000, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL FROM cand WHERE NOT covered AND paused_until IS NULL AND due_at > now() + $2 * interval '1 millisecond'
UNION ALL SELECT '${CLAIM_ROW.early}', id, due_at,
  extract(epoch FROM rate_busy_until - now()) * 1000 - ${SEND_RATE_HORIZON_MS}
    + (row_number() OVER (PARTITION BY app_id ORDER BY due_at, id) - 1) * 1000.0 / rate,
  '${EARLY_REASON.sendRate}', NULL, NULL, NULL, NULL, NULL, NULL
  FROM cand WHERE NOT covered AND paused_until IS NULL AND rate_busy_until IS NOT NULL
    AND due_at <= now() + $2 * interval '1 millisecond'`;
