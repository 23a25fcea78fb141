import { createHash } from 'node:crypto';
import type { Pool } from '../db/pool';
import { type Push, pushDedupeKey } from '../wechat/push';

/**
 * Durably records an authentic push, once: WeChat's retries of it (and the same push reaching a second api
 * process) hit the unique dedupe key and insert nothing. The key is stored hashed, as it contains the
 * openid, which an unfollow must erase. Returns the row id, or null for a repeat.
 */
export async function recordPush(
  pool: Pool,
  appId: string,
  push: Push,
  requestId: string,
): Promise<number | null> {
  const key = createHash('sha256').update(pushDedupeKey(push)).digest('base64url');
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO webhook_pushes (app_id, dedupe_key, openid, msg_type, event, fields, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (app_id, dedupe_key) DO NOTHING RETURNING id`,
    [appId, key, push.openid, push.msgType, push.event, JSON.stringify(push.fields), requestId],
  );
  return rows[0]?.id ?? null;
}
