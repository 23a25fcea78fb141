import type { PoolClient } from '../db/pool';
import { isOpenSql, MESSAGE_STATUS } from './message-status';
import type { InteractionKind, WindowRule } from '../contract';

/**
 * A window column's new value when this interaction ($4) is the newest one seen: pushes are processed
 * concurrently, and an older interaction processed last must not replace a newer one's window.
 */
const ifNewer = (value: string, column: string) =>
  `CASE WHEN followers.window_opened_at IS NULL OR $4::timestamptz >= followers.window_opened_at
   THEN ${value} ELSE followers.${column} END`;

/**
 * Records an interaction and resets the follower's contact window to the rule of its kind (a new
 * interaction replaces the allowance, it does not add to it; an older one processed late changes nothing). `rule` null: windows are not tracked for
 * this account, only the interaction and the subscription are recorded.
 */
export async function recordInteraction(
  db: PoolClient,
  input: {
    appId: string;
    openid: string;
    kind: InteractionKind;
    detail: string | null;
    at: Date;
    rule: WindowRule | null;
  },
): Promise<void> {
  const { appId, openid, kind, detail, at, rule } = input;
  await db.query(
    `INSERT INTO followers (app_id, openid, subscribed, subscribed_at, window_kind, window_opened_at, window_expires_at,
                            window_remaining)
     VALUES ($1, $2, true, CASE WHEN $3 = 'subscribe' THEN $4::timestamptz END, $3, $4::timestamptz,
             $4::timestamptz + $5 * interval '1 millisecond', $6)
     ON CONFLICT (app_id, openid) DO UPDATE SET
       subscribed = true,
       subscribed_at = CASE WHEN $3 = 'subscribe' THEN $4::timestamptz ELSE followers.subscribed_at END,
       unsubscribed_at = CASE WHEN $3 = 'subscribe' THEN NULL ELSE followers.unsubscribed_at END,
       window_kind = ${ifNewer('$3', 'window_kind')},
       window_opened_at = ${ifNewer('$4::timestamptz', 'window_opened_at')},
       window_expires_at = ${ifNewer("$4::timestamptz + $5 * interval '1 millisecond'", 'window_expires_at')},
       window_remaining = ${ifNewer('$6', 'window_remaining')}, updated_at = now()`,
    [appId, openid, kind, at.toISOString(), rule?.windowMs ?? 0, rule?.count ?? 0],
  );
  await db.query(
    `INSERT INTO interactions (app_id, openid, kind, detail, created_at) VALUES ($1, $2, $3, $4, $5)`,
    [appId, openid, kind, detail, at.toISOString()],
  );
}

/**
 * The follower unfollowed: WeChat requires deleting their data. Every open message is cancelled, and
 * message payloads, interactions, stored pushes and enrollments lose everything personal; rows stay as
 * anonymous counts (per-step results). What remains is the openid marked unsubscribed, so nothing is sent
 * to it, and the ledger row recording the cancellation. Returns how many open messages were cancelled.
 */
export async function unsubscribeAndForget(
  db: PoolClient,
  input: { appId: string; openid: string; at: Date },
): Promise<number> {
  const { appId, openid, at } = input;
  const cancelled = await db.query(
    `UPDATE scheduled_messages SET
       status = CASE WHEN ${isOpenSql('status')} THEN '${MESSAGE_STATUS.cancelled}' ELSE status END,
       status_reason = CASE WHEN ${isOpenSql('status')} THEN 'unsubscribed' ELSE status_reason END,
       openid = '', payload = '{"redacted": true}', fallback = NULL, cancel_key = NULL, updated_at = now()
     WHERE app_id = $1 AND openid = $2
     RETURNING (status = '${MESSAGE_STATUS.cancelled}' AND status_reason = 'unsubscribed') AS now_cancelled`,
    [appId, openid],
  );
  await db.query(`DELETE FROM interactions WHERE app_id = $1 AND openid = $2`, [appId, openid]);
  await db.query(`UPDATE webhook_pushes SET fields = NULL, openid = NULL WHERE app_id = $1 AND openid = $2`, [
    appId,
    openid,
  ]);
  await db.query(
    `UPDATE enrollments SET openid = '', dedupe = 'redacted:' || id::text WHERE app_id = $1 AND openid = $2`,
    [appId, openid],
  );
  await db.query(
    `INSERT INTO followers (app_id, openid, subscribed, unsubscribed_at) VALUES ($1, $2, false, $3)
     ON CONFLICT (app_id, openid) DO UPDATE SET subscribed = false, subscribed_at = NULL, unsubscribed_at = $3,
       window_kind = NULL, window_opened_at = NULL, window_expires_at = NULL, window_remaining = 0, updated_at = now()`,
    [appId, openid, at.toISOString()],
  );
  return cancelled.rows.filter((r: { now_cancelled: boolean }) => r.now_cancelled).length;
}
