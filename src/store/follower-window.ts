import type { Pool, PoolClient } from '../db/pool';

/** WeChat answered 45015 / 45047: its word beats our bookkeeping, so no more sends until the next interaction. */
export async function closeWindow(pool: Pool, appId: string, openid: string): Promise<void> {
  await pool.query(
    `UPDATE followers SET window_remaining = 0, updated_at = now() WHERE app_id = $1 AND openid = $2`,
    [appId, openid],
  );
}

/**
 * When each follower's current contact window closes (`followers.window_expires_at`), by `appId\0openid`;
 * absent for a follower with no window recorded. Read in the caller's transaction, which has recorded the
 * interaction that just happened, if any.
 */
export async function findWindowEnds(
  db: PoolClient,
  followers: readonly { appId: string; openid: string }[],
): Promise<Map<string, Date>> {
  if (followers.length === 0) return new Map();
  const { rows } = await db.query<{ app_id: string; openid: string; window_expires_at: Date }>(
    `SELECT f.app_id, f.openid, f.window_expires_at
     FROM followers f JOIN unnest($1::text[], $2::text[]) AS i(app_id, openid)
       ON f.app_id = i.app_id AND f.openid = i.openid
     WHERE f.window_expires_at IS NOT NULL`,
    [followers.map((f) => f.appId), followers.map((f) => f.openid)],
  );
  return new Map(rows.map((r) => [followerKey(r.app_id, r.openid), r.window_expires_at]));
}

/** The key of `findWindowEnds`'s map. */
export const followerKey = (appId: string, openid: string): string => `${appId}\u0000${openid}`;
