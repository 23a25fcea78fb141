import type { PoolClient } from '../db/pool';
import type { ClaimSnapshot, PolicyClock, QuietHours } from '../policy/snapshot';
import { LEDGER_COVERS } from './ledger';
import { isOpenSql, type Channel } from './message-status';
import { byIdStatement, inPartitionsOf, partitionSlotsOf } from './message-partitions';

/**
 * A time as epoch milliseconds (float8): the driver parses a number far faster than a timestamptz, and
 * the claim reads up to eight per message.
 */
const MS = (t: string) => `(extract(epoch FROM ${t}) * 1000)::float8`;
/** The frequency cap's day (WeChat's and the marketers' day). */
const CAP_ZONE = `'Asia/Shanghai'`;

/**
 * The claim's one read: the batch's open messages, locked, with all that decides them. Run after the claim
 * locks, in the claim's transaction. Rows are locked in one order by every claim: the messages by id, then
 * their followers by (app id, openid), then their notice acceptances by (app id, openid, template), so two
 * claims over the same rows wait for each other instead of deadlocking, and the second reads what the
 * first wrote (a message it claimed is no longer open, and drops out).
 *
 * Params: `$1 uuid[]` the batch's ids (and their partitions' slots: claimSnapshot, a byIdStatement).
 * Returns: one row per open message of the batch, in due order (due_at, id): the message, its ledger
 * coverage, account (state, pause, pacing, quiet hours), sequence's quiet hours, follower (null columns
 * if never heard from), acceptances left of its notice template; and the database's clock on every row.
 */
export const CLAIM_SNAPSHOT_SQL = `
WITH msg AS MATERIALIZED (
  SELECT m.id, m.app_id, m.openid, m.channel, ${MS('m.due_at')} AS due_at, m.frequency_capped, m.sequence_id,
         CASE WHEN m.fallback IS NOT NULL THEN m.fallback_channel END AS fallback,
         CASE WHEN m.channel = 'notice' THEN m.payload->>'template_id'
              WHEN m.fallback IS NOT NULL AND m.fallback_channel = 'notice' THEN m.fallback->>'template_id'
         END AS notice_template,
         ${MS('m.intended_at')} + m.max_lateness_ms AS stale_at, ${LEDGER_COVERS('m')} AS covered
  FROM scheduled_messages m
  WHERE m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')}
    AND ${isOpenSql('m.status')}
  ORDER BY m.id FOR NO KEY UPDATE
), fol AS MATERIALIZED (
  SELECT f.app_id, f.openid, f.subscribed, ${MS('f.window_expires_at')} AS window_expires_at, f.window_remaining,
         f.capped_day, f.capped_sent
  FROM followers f WHERE (f.app_id, f.openid) IN (SELECT app_id, openid FROM msg)
  ORDER BY f.app_id, f.openid FOR NO KEY UPDATE
), accepted AS MATERIALIZED (
  SELECT n.app_id, n.openid, n.template_id, n.remaining FROM notice_acceptances n
  WHERE (n.app_id, n.openid, n.template_id) IN (SELECT app_id, openid, notice_template FROM msg)
  ORDER BY n.app_id, n.openid, n.template_id FOR NO KEY UPDATE
)
SELECT msg.*, a.enabled IS FALSE AS disabled, a.frequency_cap_per_day, a.quiet_hours AS account_quiet,
       a.time_zone, a.send_rate_per_second, ${MS('st.paused_until')} AS paused_until,
       ${MS('sp.next_at')} AS rate_reserved_until,
       sq.id IS NOT NULL AS in_sequence, sq.quiet_hours AS sequence_quiet,
       f.app_id IS NOT NULL AS known, f.subscribed, f.window_expires_at, f.window_remaining,
       f.capped_day::text AS capped_day, f.capped_sent, COALESCE(n.remaining, 0) AS acceptances_left,
       ${MS('now()')} AS now, ${MS('clock_timestamp()')} AS clock,
       (now() AT TIME ZONE ${CAP_ZONE})::date::text AS cap_day,
       ${MS(`(date_trunc('day', now() AT TIME ZONE ${CAP_ZONE}) + interval '1 day') AT TIME ZONE ${CAP_ZONE}`)} AS next_cap_day_at
FROM msg
LEFT JOIN accounts a ON a.app_id = msg.app_id
LEFT JOIN account_states st ON st.app_id = msg.app_id
LEFT JOIN send_pacing sp ON sp.app_id = msg.app_id
LEFT JOIN sequences sq ON sq.id = msg.sequence_id
LEFT JOIN fol f ON f.app_id = msg.app_id AND f.openid = msg.openid
LEFT JOIN accepted n ON n.app_id = msg.app_id AND n.openid = msg.openid AND n.template_id = msg.notice_template
ORDER BY msg.due_at, msg.id`;
export const claimSnapshot = byIdStatement('claim_snapshot', CLAIM_SNAPSHOT_SQL);

interface SnapshotRow {
  id: string;
  app_id: string;
  openid: string;
  channel: Channel;
  due_at: number;
  frequency_capped: boolean;
  fallback: 'template' | 'notice' | null;
  notice_template: string | null;
  stale_at: number | null;
  covered: boolean;
  disabled: boolean;
  frequency_cap_per_day: number | null;
  account_quiet: QuietHours | null;
  time_zone: string | null;
  send_rate_per_second: number | null;
  paused_until: number | null;
  rate_reserved_until: number | null;
  in_sequence: boolean;
  sequence_quiet: QuietHours | false | null;
  known: boolean;
  subscribed: boolean | null;
  window_expires_at: number | null;
  window_remaining: number | null;
  capped_day: string | null;
  capped_sent: number | null;
  acceptances_left: number;
  now: number;
  clock: number;
  cap_day: string;
  next_cap_day_at: number;
}

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** What the claim read: each open message's snapshot in due order, and the database's clock. */
export interface ClaimRead {
  readonly snapshots: ClaimSnapshot[];
  /** Null when no message of the batch is open. */
  readonly clock: PolicyClock | null;
}

/** Runs CLAIM_SNAPSHOT_SQL; `uncheckedAppIds`: accounts whose contact window is not checked here. */
export async function readClaimSnapshot(
  client: PoolClient,
  ids: readonly string[],
  uncheckedAppIds: readonly string[],
): Promise<ClaimRead> {
  const { rows } = await client.query<SnapshotRow>(
    claimSnapshot([ids], partitionSlotsOf(ids, { awaitingPump: false })),
  );
  if (rows.length === 0) return { snapshots: [], clock: null };
  const unchecked = new Set(uncheckedAppIds);
  // Each row reads clock_timestamp(); the latest was read once every lock was held.
  const latest = Math.max(...rows.map((r) => r.clock));
  const { now, cap_day: capDay, next_cap_day_at: nextCapDayAt } = rows[0];
  return {
    clock: { now: new Date(now), clock: new Date(latest), capDay, nextCapDayAt: new Date(nextCapDayAt) },
    snapshots: rows.map((r) => ({
      message: {
        id: r.id,
        appId: r.app_id,
        openid: r.openid,
        channel: r.channel,
        fallback: r.fallback,
        noticeTemplate: r.notice_template,
        dueAt: new Date(r.due_at),
        staleAt: dateOf(r.stale_at),
        coveredByLedger: r.covered,
        frequencyCapped: r.frequency_capped,
        sequence: r.in_sequence ? { quietHours: r.sequence_quiet } : null,
      },
      account: {
        disabled: r.disabled,
        windowChecked: !unchecked.has(r.app_id),
        pausedUntil: dateOf(r.paused_until),
        frequencyCapPerDay: r.frequency_cap_per_day,
        quietHours: r.account_quiet,
        timeZone: r.time_zone,
        sendRatePerSecond: r.send_rate_per_second,
        rateReservedUntil: dateOf(r.rate_reserved_until),
      },
      follower: r.known
        ? {
            subscribed: r.subscribed!,
            windowExpiresAt: dateOf(r.window_expires_at),
            windowRemaining: r.window_remaining!,
            cappedDay: r.capped_day,
            cappedSent: r.capped_sent!,
          }
        : null,
      acceptancesLeft: r.acceptances_left,
    })),
  };
}
