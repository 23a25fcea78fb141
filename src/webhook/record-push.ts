import { createHash } from 'node:crypto';
import { isTransientDbError } from '../db/errors';
import { type Pool, withTransaction } from '../db/pool';
import { type Push, pushDedupeKey } from '../wechat/push';
import { insertPushes, type NewPush } from '../store/webhook-pushes';
import { claimUrlUses, type UrlUse } from '../store/webhook-url-uses';
import { type Coalescer, createCoalescer } from '../coalescer';

/** What recording a push did: stored it, found it already stored, or refused its URL's reuse. */
export type RecordResult =
  | { readonly status: 'recorded'; readonly id: number }
  | { readonly status: 'duplicate' }
  | { readonly status: 'replayed' };

/** An authentic push to record. `urlUse`: plaintext mode, the URL to claim for its body. */
export interface PushToRecord {
  readonly appId: string;
  readonly push: Push;
  readonly requestId: string;
  readonly urlUse: UrlUse | null;
}

const REPLAYED: RecordResult = { status: 'replayed' };
/**
 * Pushes arriving while this many record transactions run wait and are recorded together in the next
 * (up to RECORD_BATCH): a surge of follows costs a few transactions, not one each (each is a commit, a
 * flush of the WAL, and round-trips), and leaves pool connections for the processing. One at a time made
 * the batches grow with the load (in the follower-surge bench more follows/s and a lower answer p99
 * than three); a push then waits at most for the transaction in flight and its own.
 */
const RECORD_CONCURRENCY = 1;
const RECORD_BATCH = 200;

/**
 * The api's recorder: each push is recorded (`recordPushes`) with those arriving meanwhile. A batch the
 * database refuses (not an outage) is recorded push by push, so that one push it refuses costs the others
 * nothing; an outage fails every push of the batch, and each caller retries.
 */
export function createPushRecorder(pool: Pool): Coalescer<PushToRecord, RecordResult> {
  return createCoalescer<PushToRecord, RecordResult>({
    maxBatch: RECORD_BATCH,
    maxConcurrent: RECORD_CONCURRENCY,
    run: (pushes) => recordPushes(pool, pushes),
    splitOnError: (err) => !isTransientDbError(err),
  });
}

/**
 * Durably records authentic pushes, each once, in one transaction (one statement without URL claims):
 * WeChat's retries of a push (and the same push reaching a second api process) hit the unique dedupe key
 * and insert nothing. The key is stored hashed, as it contains the openid, which an unfollow must erase.
 * In plaintext mode (`urlUse` given) the URL is claimed for the push's body in the same transaction: a URL
 * that carried another body records nothing and answers `replayed`. One result per push, in order; an
 * error means none of them was recorded.
 */
export async function recordPushes(pool: Pool, pushes: readonly PushToRecord[]): Promise<RecordResult[]> {
  const claims = pushes.flatMap((p) => (p.urlUse ? [p.urlUse] : []));
  if (claims.length === 0) return store(await insertPushes(pool, pushes.map(toNewPush)));
  return withTransaction(pool, async (client) => {
    const claimed = await claimUrlUses(client, claims);
    let next = 0;
    const keep = pushes.map((p) => p.urlUse === null || claimed[next++]);
    const ids = await insertPushes(client, pushes.filter((_, i) => keep[i]).map(toNewPush));
    let stored = 0;
    return pushes.map((_, i) => (keep[i] ? store([ids[stored++]])[0] : REPLAYED));
  });
}

function store(ids: readonly (number | null)[]): RecordResult[] {
  return ids.map((id) => (id === null ? { status: 'duplicate' } : { status: 'recorded', id }));
}

function toNewPush({ appId, push, requestId }: PushToRecord): NewPush {
  return {
    appId,
    dedupeKey: createHash('sha256').update(pushDedupeKey(push)).digest('base64url'),
    openid: push.openid,
    msgType: push.msgType,
    event: push.event,
    fields: push.fields,
    requestId,
  };
}
