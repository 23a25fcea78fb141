import { createHash } from 'node:crypto';
import { type Pool, type PoolClient, withTransaction } from '../db/pool';
import { type Push, pushDedupeKey } from '../wechat/push';
import { insertPush } from '../store/webhook-pushes';
import { claimUrlUse, type UrlUse } from '../store/webhook-url-uses';

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
  if (urlUse === null) return storePush(pool, appId, push, requestId);
  return withTransaction(pool, async (client) =>
    (await claimUrlUse(client, urlUse))
      ? storePush(client, appId, push, requestId)
      : { status: 'replayed' as const },
  );
}

async function storePush(
  db: Pool | PoolClient,
  appId: string,
  push: Push,
  requestId: string,
): Promise<RecordResult> {
  const id = await insertPush(db, {
    appId,
    dedupeKey: createHash('sha256').update(pushDedupeKey(push)).digest('base64url'),
    openid: push.openid,
    msgType: push.msgType,
    event: push.event,
    fields: push.fields,
    requestId,
  });
  return id === null ? { status: 'duplicate' } : { status: 'recorded', id };
}
