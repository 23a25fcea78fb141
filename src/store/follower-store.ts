import type { PoolClient } from '../db/pool';
import { isOpenSql, MESSAGE_STATUS } from './message-status';
import type { InteractionKind, WindowRule } from '../contract';

/** An interaction to record: it resets the follower's contact window to `rule` (null: windows not tracked). */
export interface NewInteraction {
  readonly appId: string;
  readonly openid: string;
  readonly kind: InteractionKind;
  readonly detail: string | null;
  readonly at: Date;
  readonly rule: WindowRule | null;
}

/**
 * A window column's new value when the interaction being upserted (`EXCLUDED`) is the newest one seen:
 * pushes are processed concurrently, and an older interaction processed last must not replace a newer
 * one's window.
 */
const ifNewer = (column: string) =>
  `CASE WHEN followers.window_opened_at IS NULL OR EXCLUDED.window_opened_at >= followers.window_opened_at
   THEN EXCLUDED.${column} ELSE followers.${column} END`;

/**
 * Records interactions — one per follower: the list must not name a follower twice (one statement cannot
 * change a row twice) — and resets each follower's contact window to the rule of its kind (a new
 * interaction replaces the allowance, it does not add to it; an older one processed late changes nothing).
 * A null rule: windows are not tracked for that account, only the interaction and the subscription are
 * recorded. Two statements: the followers (in openid order, so that two batches never wait for each
 * other in a cycle), then the interactions.
 */
export async function recordInteractions(db: PoolClient, inputs: readonly NewInteraction[]): Promise<void> {
  if (inputs.length === 0) return;
  await upsertFollowerWindows(db, inputs);
  await insertInteractions(db, inputs);
}

async function upsertFollowerWindows(db: PoolClient, inputs: readonly NewInteraction[]): Promise<void> {
  const rows = [...inputs].sort((a, b) =>
    a.appId === b.appId ? (a.openid < b.openid ? -1 : 1) : a.appId < b.appId ? -1 : 1,
  );
  await db.query(
    `INSERT INTO followers (app_id, openid, subscribed, subscribed_at, window_kind, window_opened_at, window_expires_at,
                            window_remaining)
     SELECT app_id, openid, true, CASE WHEN kind = 'subscribe' THEN at END, kind, at,
            at + window_ms * interval '1 millisecond', remaining
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::bigint[], $6::int[])
         AS i(app_id, openid, kind, at, window_ms, remaining)
     ON CONFLICT (app_id, openid) DO UPDATE SET
       subscribed = true,
       subscribed_at = CASE WHEN EXCLUDED.window_kind = 'subscribe' THEN EXCLUDED.window_opened_at
                            ELSE followers.subscribed_at END,
       unsubscribed_at = CASE WHEN EXCLUDED.window_kind = 'subscribe' THEN NULL ELSE followers.unsubscribed_at END,
       window_kind = ${ifNewer('window_kind')},
       window_opened_at = ${ifNewer('window_opened_at')},
       window_expires_at = ${ifNewer('window_expires_at')},
       window_remaining = ${ifNewer('window_remaining')}, updated_at = now()`,
    [
      rows.map((i) => i.appId),
      rows.map((i) => i.openid),
      rows.map((i) => i.kind),
      rows.map((i) => i.at.toISOString()),
      rows.map((i) => i.rule?.windowMs ?? 0),
      rows.map((i) => i.rule?.count ?? 0),
    ],
  );
}

async function insertInteractions(db: PoolClient, inputs: readonly NewInteraction[]): Promise<void> {
  await db.query(
    `INSERT INTO interactions (app_id, openid, kind, detail, created_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])`,
    [
      inputs.map((i) => i.appId),
      inputs.map((i) => i.openid),
      inputs.map((i) => i.kind),
      inputs.map((i) => i.detail),
      inputs.map((i) => i.at.toISOString()),
    ],
  );
}

/**
 * The follower unfollowed: WeChat requires deleting their data. Every open message is cancelled, and
 * message payloads, interactions, stored pushes, enrollments (their variables too), journey waits (which
 * end) and posted events lose everything personal;
 * rows stay as anonymous counts (per-step results; an event's idempotency key and answer). What remains is
 * the openid marked unsubscribed, so nothing is sent to it, and the ledger row recording the cancellation. Returns how many open messages were cancelled.
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
    `UPDATE enrollments SET openid = '', dedupe = 'redacted:' || id::text, vars = '{}'
     WHERE app_id = $1 AND openid = $2`,
    [appId, openid],
  );
  // Their journeys' waits end (no path starts for them) and keep only anonymous counts.
  await db.query(
    `UPDATE journey_waits SET openid = '', outcome = coalesce(outcome, 'ended'), resolved_at = coalesce(resolved_at, $3)
     WHERE app_id = $1 AND openid = $2`,
    [appId, openid, at.toISOString()],
  );
  await db.query(`UPDATE follower_events SET openid = '' WHERE app_id = $1 AND openid = $2`, [appId, openid]);
  // Their last-chance steps (cancelled above) keep only the counts: no openid, no content.
  await db.query(
    `UPDATE last_chance_steps SET openid = '', payload = '{}', fallback = NULL, settled_at = coalesce(settled_at, $3)
     WHERE app_id = $1 AND openid = $2`,
    [appId, openid, at.toISOString()],
  );
  await db.query(
    `INSERT INTO followers (app_id, openid, subscribed, unsubscribed_at) VALUES ($1, $2, false, $3)
     ON CONFLICT (app_id, openid) DO UPDATE SET subscribed = false, subscribed_at = NULL, unsubscribed_at = $3,
       window_kind = NULL, window_opened_at = NULL, window_expires_at = NULL, window_remaining = 0, updated_at = now()`,
    [appId, openid, at.toISOString()],
  );
  return cancelled.rows.filter((r: { now_cancelled: boolean }) => r.now_cancelled).length;
}
