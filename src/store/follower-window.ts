import type { Pool } from '../db/pool';

/** WeChat answered 45015 / 45047: its word beats our bookkeeping, so no more sends until the next interaction. */
export async function closeWindow(pool: Pool, appId: string, openid: string): Promise<void> {
  await pool.query(
    `UPDATE followers SET window_remaining = 0, updated_at = now() WHERE app_id = $1 AND openid = $2`,
    [appId, openid],
  );
}
