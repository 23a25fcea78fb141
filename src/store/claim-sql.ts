import { ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER, CLAIM_LOCK_KEY, LEDGER_COVERS } from './ledger';
import { isOpenSql, MESSAGE_STATUS } from './message-status';
import { SEND_RATE_HORIZON_MS } from './send-pacing';

/**
 * Why the claim re-delays a message: not due yet (or its account paused), its account's rate is taken, the
 * follower's day is over the account's frequency cap (moved to the next day), or a sequence step fell due in
 * its quiet hours (moved to their end).
 */
export const EARLY_REASON = {
  notDue: 'early',
  sendRate: 'send_rate',
  frequencyCap: 'frequency_cap',
  quietHours: 'quiet_hours',
} as const;
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
  frequencyCap: 'frequency_cap',
  noSubscription: 'no_subscription',
  quietHours: 'quiet_hours',
} as const;
export type ClaimSkipReason = (typeof CLAIM_SKIP_REASON)[keyof typeof CLAIM_SKIP_REASON];

/** Which list of ClaimResult a row of the claim's result belongs to. */
export const CLAIM_ROW = {
  claimed: 'claimed',
  early: 'early',
  cancelled: 'cancelled',
  skipped: 'skipped',
} as const;
export type ClaimRow = (typeof CLAIM_ROW)[keyof typeof CLAIM_ROW];

/** A skip verdict inside the claim: `skip:` and the reason, which the `skipped` step cuts off (substr 6). */
const skip = (reason: ClaimSkipReason): string => `skip:${reason}`;

/** The follower's day for the frequency cap (WeChat's and the marketers' day). */
const TZ = `'Asia/Shanghai'`;
const TODAY = `(now() AT TIME ZONE ${TZ})::date`;
/**
 * Verdicts that move a message and leave it queued (`later:` and the EARLY_REASON, which the `moved` step cuts
 * off, substr 7): over the frequency cap, to the next day; in quiet hours, to their end.
 */
const LATER_FREQUENCY_CAP = `later:${EARLY_REASON.frequencyCap}`;
const LATER_QUIET_HOURS = `later:${EARLY_REASON.quietHours}`;

/**
 * A sequence step's quiet hours: the sequence's own (an object), none (`false`), or else (null) its account's
 * default. API messages have none.
 */
const QUIET_HOURS = `CASE WHEN sq.id IS NULL OR sq.quiet_hours = 'false'::jsonb THEN NULL
  ELSE COALESCE(sq.quiet_hours, acc.quiet_hours) END`;

/** Verdicts before the notice check: the message goes out as a notice if the follower accepted one. */
const NOTICE_SEND = 'notice:send';
const NOTICE_FALLBACK = 'notice:fallback';

const OPEN = isOpenSql('m.status');
/** Shared claim locks on the batch's accounts, in account order (a claim never waits holding a later one). */
export const CLAIM_LOCKS_SQL = `
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
 * - `skipped`:   id, reason (`account_disabled` | `stale` | `unsubscribed` | `frequency_cap` | `window_closed`
 *                | `no_subscription` | `quiet_hours`);
 * - `early`:     id, due_at, remaining_ms, reason: null (not due yet, or its account is paused until
 *                due_at), `frequency_cap` (moved to the next day), `quiet_hours` (moved to their end),
 *                `send_rate` (the rate is reserved ahead).
 * Ids absent from the result are gone, finished, or being sent by someone else.
 */
export const CLAIM_SQL = `
WITH cand AS (
  SELECT m.id, m.app_id, m.openid, m.channel, m.fallback IS NOT NULL AS has_fallback, m.fallback_channel, m.due_at,
         CASE WHEN m.channel = 'notice' THEN m.payload->>'template_id'
              WHEN m.fallback_channel = 'notice' THEN m.fallback->>'template_id' END AS notice_template,
         m.intended_at + m.max_lateness_ms * interval '1 millisecond' < now() AS stale,
         ${LEDGER_COVERS('m')} AS covered, a.paused_until, acc.enabled IS FALSE AS disabled,
         sp.next_at AS rate_busy_until, acc.send_rate_per_second AS rate,
         m.frequency_capped AND acc.frequency_cap_per_day IS NOT NULL AS capped, acc.frequency_cap_per_day AS cap,
         m.intended_at + m.max_lateness_ms * interval '1 millisecond' AS stale_at,
         (date_trunc('day', now() AT TIME ZONE ${TZ}) + interval '1 day') AT TIME ZONE ${TZ} AS next_day,
         -- The end of the quiet hours the step falls due in (now, the database's clock); null outside them.
         CASE WHEN ${QUIET_HOURS} IS NOT NULL THEN quiet_hours_end(${QUIET_HOURS}, acc.time_zone, now()) END
           AS quiet_end
  FROM scheduled_messages m
  LEFT JOIN account_states a ON a.app_id = m.app_id AND a.paused_until > now()
  LEFT JOIN accounts acc ON acc.app_id = m.app_id
  LEFT JOIN sequences sq ON sq.id = m.sequence_id
  -- The reservations are stamped with clock_timestamp(): so is their horizon (now() is the claim's start,
  -- which may lie long behind after a wait for the claim lock).
  LEFT JOIN send_pacing sp ON sp.app_id = m.app_id
    AND sp.next_at > clock_timestamp() + ${SEND_RATE_HORIZON_MS} * interval '1 millisecond'
  WHERE m.id = ANY($1::uuid[]) AND ${OPEN}
), due AS (
  -- A step moved for quiet hours does not go out now: it takes no place in the window's count or the cap;
  -- \`quiet_rank\` is its place among the follower's moved ones (all due at the same end) for the window then.
  SELECT *,
         count(*) FILTER (WHERE quiet_end IS NULL) OVER (PARTITION BY app_id, openid, channel ORDER BY due_at, id)
           AS rank,
         count(*) FILTER (WHERE capped AND quiet_end IS NULL) OVER (PARTITION BY app_id, openid ORDER BY due_at, id)
           AS cap_rank,
         count(*) FILTER (WHERE quiet_end IS NOT NULL) OVER (PARTITION BY app_id, openid ORDER BY due_at, id)
           AS quiet_rank
  FROM cand WHERE NOT covered AND paused_until IS NULL AND rate_busy_until IS NULL
    AND due_at <= now() + $2 * interval '1 millisecond'
), locked AS (
  SELECT f.app_id, f.openid, f.subscribed, f.window_expires_at, f.window_remaining,
         CASE WHEN f.capped_day = ${TODAY} THEN f.capped_sent ELSE 0 END AS capped_today FROM followers f
  WHERE (f.app_id, f.openid) IN (SELECT app_id, openid FROM due)
  ORDER BY f.app_id, f.openid FOR UPDATE
), accepted AS (
  SELECT n.app_id, n.openid, n.template_id, n.remaining FROM notice_acceptances n
  WHERE (n.app_id, n.openid, n.template_id) IN (SELECT app_id, openid, notice_template FROM due)
  ORDER BY n.app_id, n.openid, n.template_id FOR UPDATE
), prejudged AS (
  SELECT d.id, d.app_id, d.openid, d.capped, d.next_day, d.quiet_end, d.notice_template, d.due_at, CASE
      WHEN d.disabled THEN '${skip(CLAIM_SKIP_REASON.accountDisabled)}'
      WHEN d.stale THEN '${skip(CLAIM_SKIP_REASON.stale)}'
      WHEN l.subscribed = false THEN '${skip(CLAIM_SKIP_REASON.unsubscribed)}'
      -- In quiet hours: moved to their end if it can go out then (the window still open with room, or a
      -- fallback that takes over when it is not), else skipped now rather than at the end.
      WHEN d.quiet_end IS NOT NULL THEN CASE
        WHEN (d.stale_at IS NULL OR d.stale_at >= d.quiet_end) AND (d.channel <> 'custom'
          OR d.app_id = ANY($3::text[]) OR d.has_fallback
          OR (l.window_expires_at > d.quiet_end AND d.quiet_rank <= l.window_remaining))
        THEN '${LATER_QUIET_HOURS}' ELSE '${skip(CLAIM_SKIP_REASON.quietHours)}' END
      WHEN d.capped AND COALESCE(l.capped_today, 0) + d.cap_rank > d.cap THEN CASE
        WHEN (d.stale_at IS NULL OR d.stale_at >= d.next_day) AND (d.channel <> 'custom'
          OR d.app_id = ANY($3::text[]) OR d.has_fallback OR l.window_expires_at > d.next_day)
        THEN '${LATER_FREQUENCY_CAP}' ELSE '${skip(CLAIM_SKIP_REASON.frequencyCap)}' END
      WHEN d.channel = 'notice' THEN '${NOTICE_SEND}'
      WHEN d.channel = 'template' OR d.app_id = ANY($3::text[]) THEN '${CLAIMED_AS.unchecked}'
      WHEN l.window_expires_at > now() AND d.rank <= l.window_remaining THEN '${CLAIMED_AS.window}'
      WHEN d.has_fallback AND d.fallback_channel = 'notice' THEN '${NOTICE_FALLBACK}'
      WHEN d.has_fallback THEN '${CLAIMED_AS.fallback}'
      ELSE '${skip(CLAIM_SKIP_REASON.windowClosed)}' END AS verdict
  FROM due d LEFT JOIN locked l ON l.app_id = d.app_id AND l.openid = d.openid
), judged AS (
  -- A notice goes out while the follower has acceptances of its template left, one each, in due order.
  SELECT p.id, p.app_id, p.openid, p.capped, p.next_day, p.quiet_end, p.notice_template, CASE
      WHEN p.verdict NOT LIKE 'notice:%' THEN p.verdict
      WHEN row_number() OVER (PARTITION BY p.app_id, p.openid, p.notice_template, p.verdict LIKE 'notice:%'
        ORDER BY p.due_at, p.id) > COALESCE(a.remaining, 0) THEN '${skip(CLAIM_SKIP_REASON.noSubscription)}'
      WHEN p.verdict = '${NOTICE_SEND}' THEN '${CLAIMED_AS.unchecked}'
      ELSE '${CLAIMED_AS.fallback}' END AS verdict,
    p.verdict LIKE 'notice:%' AS noticed
  FROM prejudged p
  LEFT JOIN accepted a ON a.app_id = p.app_id AND a.openid = p.openid AND a.template_id = p.notice_template
), spent AS (
  UPDATE notice_acceptances n SET remaining = n.remaining - c.n_sent, updated_at = now()
  FROM (SELECT app_id, openid, notice_template, count(*) AS n_sent FROM judged
        WHERE noticed AND verdict LIKE 'send%' GROUP BY 1, 2, 3) c
  WHERE n.app_id = c.app_id AND n.openid = c.openid AND n.template_id = c.notice_template
  RETURNING n.openid
), consumed AS (
  UPDATE followers f SET window_remaining = f.window_remaining - c.n_window, updated_at = now(),
    capped_sent = CASE WHEN c.n_capped = 0 THEN f.capped_sent
      WHEN f.capped_day = ${TODAY} THEN f.capped_sent + c.n_capped ELSE c.n_capped END,
    capped_day = CASE WHEN c.n_capped = 0 THEN f.capped_day ELSE ${TODAY} END
  FROM (SELECT app_id, openid, count(*) FILTER (WHERE verdict = '${CLAIMED_AS.window}') AS n_window,
          count(*) FILTER (WHERE capped AND verdict LIKE 'send%') AS n_capped
        FROM judged GROUP BY 1, 2) c
  WHERE f.app_id = c.app_id AND f.openid = c.openid AND (c.n_window > 0 OR c.n_capped > 0)
  RETURNING f.openid
), cancelled AS (
  UPDATE scheduled_messages m SET status = '${MESSAGE_STATUS.cancelled}', status_reason = 'ledger', updated_at = now()
  FROM cand WHERE m.id = cand.id AND cand.covered AND ${OPEN}
  RETURNING m.id
), paused AS (
  UPDATE scheduled_messages m SET due_at = cand.paused_until, status = '${MESSAGE_STATUS.queued}', updated_at = now()
  FROM cand WHERE m.id = cand.id AND NOT cand.covered AND cand.paused_until IS NOT NULL AND ${OPEN}
  RETURNING m.id, m.due_at
), moved AS (
  UPDATE scheduled_messages m
  SET due_at = CASE WHEN j.verdict = '${LATER_QUIET_HOURS}' THEN j.quiet_end ELSE j.next_day END, updated_at = now()
  FROM judged j WHERE m.id = j.id AND j.verdict LIKE 'later:%' AND ${OPEN}
  RETURNING m.id, m.due_at, substr(j.verdict, 7) AS reason
), skipped AS (
  UPDATE scheduled_messages m SET status = '${MESSAGE_STATUS.skipped}', status_reason = substr(j.verdict, 6), updated_at = now()
  FROM judged j WHERE m.id = j.id AND j.verdict LIKE 'skip:%' AND ${OPEN}
  RETURNING m.id, m.status_reason
), claimed AS (
  UPDATE scheduled_messages m
  SET status = '${MESSAGE_STATUS.sending}', attempts = m.attempts + 1, claimed_at = now(), updated_at = now(),
      channel = CASE WHEN j.verdict = '${CLAIMED_AS.fallback}' THEN m.fallback_channel ELSE m.channel END,
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
UNION ALL SELECT '${CLAIM_ROW.early}', id, due_at, extract(epoch FROM due_at - now()) * 1000, reason,
  NULL, NULL, NULL, NULL, NULL, NULL FROM moved
UNION ALL SELECT '${CLAIM_ROW.early}', id, due_at, extract(epoch FROM due_at - now()) * 1000, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL FROM cand WHERE NOT covered AND paused_until IS NULL AND due_at > now() + $2 * interval '1 millisecond'
UNION ALL SELECT '${CLAIM_ROW.early}', id, due_at,
  extract(epoch FROM rate_busy_until - clock_timestamp()) * 1000 - ${SEND_RATE_HORIZON_MS}
    + (row_number() OVER (PARTITION BY app_id ORDER BY due_at, id) - 1) * 1000.0 / rate,
  '${EARLY_REASON.sendRate}', NULL, NULL, NULL, NULL, NULL, NULL
  FROM cand WHERE NOT covered AND paused_until IS NULL AND rate_busy_until IS NOT NULL
    AND due_at <= now() + $2 * interval '1 millisecond'`;
