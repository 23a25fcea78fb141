import { createHash } from 'node:crypto';
import { type Pool, type PoolClient, withTransaction } from '../db/pool';
import { type Push, pushDedupeKey } from '../wechat/push';
import { claimUrlUse, type UrlUse } from './url-uses';

/** What recording a push did: stored it, found it already stored, or refused its URL's reuse. */
export type RecordResult =
  | { readonly status: 'recorded'; readonly id: number }
  | { readonly status: 'duplicate' }
  | { readonly status: 'replayed' };

/**
 * Durably records an authentic push, once: WeChat's retries of it (and the same push reaching a second api
 * process) hit the unique dedupe key and insert nothing. The key is stored hashed, as it contains the
 * openid, which an unfollow must erase. In plaintext mode (`urlUse` given) the URL is claimed for this
 * body in the same transaction: a URL that carried another body records nothing and answers `replayed`.
 */
export async function recordPush(
  pool: Pool,
  appId: string,
  push: Push,
  requestId: string,
  urlUse: UrlUse | null,
): Promise<RecordResult> {
  if (urlUse === null) return insertPush(pool, appId, push, requestId);
  return withTransaction(pool, async (client) =>
    (await claimUrlUse(client, urlUse))
      ? insertPush(client, appId, push, requestId)
      : { status: 'replayed' as const },
  );
}

async function insertPush(
  db: Pool | PoolClient,
  appId: string,
  push: Push,
  requestId: string,
): Promise<RecordResult> {
  const key = createHash('sha256').update(pushDedupeKey(push)).digest('base64url');
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO webhook_pushes (app_id, dedupe_key, openid, msg_type, event, fields, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (app_id, dedupe_key) DO NOTHING RETURNING id`,
    [appId, key, push.openid, push.msgType, push.event, JSON.stringify(push.fields), requestId],
  );
  return rows[0] ? { status: 'recorded', id: rows[0].id } : { status: 'duplicate' };
}
