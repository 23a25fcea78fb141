import { createHash } from 'node:crypto';
import { createPool, withTransaction } from '../src/db/pool';
import { recordInteractions } from '../src/store/follower-store';
import { insertPushes, markPushesProcessed } from '../src/store/webhook-pushes';
import { silentLogger } from '../test/helpers/logger';
import { withSearchPath } from '../test/helpers/services';
import type { DripSystem } from './drip';
import type { Scenario } from './scenarios';
import { relationSizes, sizeGrowth } from './unit-probes';
import { walMark } from './wal';

/** Follows recorded per transaction, as the webhook records a batch of pushes. */
const FOLLOW_BATCH = 500;

/** Bytes and WAL per follower: in total, and by relation (an index's name prefixed `index:`). */
export interface FollowerCosts {
  readonly count: number;
  readonly wal: number;
  readonly bytes: Record<string, number>;
}

/** Follows recorded as the webhook records them: the push, the follower and its interaction, processed. */
export async function followers(s: Scenario, drip: DripSystem, count: number): Promise<FollowerCosts> {
  const { databaseUrl } = s.env;
  const schema = drip.schemaName();
  const pool = createPool({
    connectionString: withSearchPath(databaseUrl, schema),
    max: 1,
    logger: silentLogger,
  });
  const sizes = await relationSizes(databaseUrl, schema);
  const wal = await walMark(databaseUrl);
  try {
    for (let from = 0; from < count; from += FOLLOW_BATCH) {
      const batch = Array.from({ length: Math.min(FOLLOW_BATCH, count - from) }, (_, k) => {
        const openid = `oFollower${s.tag}${String(from + k).padStart(9, '0')}`.slice(0, 28);
        const at = new Date();
        const createTime = String(Math.floor(at.getTime() / 1000));
        const fields = { ToUserName: 'gh_0123456789ab', FromUserName: openid, CreateTime: createTime };
        const push = { ...fields, MsgType: 'event', Event: 'subscribe', EventKey: '' };
        return {
          openid,
          at,
          push,
          dedupeKey: createHash('sha256')
            .update(openid + createTime)
            .digest('hex'),
        };
      });
      await withTransaction(pool, async (client) => {
        const ids = await insertPushes(
          client,
          batch.map((f) => ({
            appId: s.env.appId,
            dedupeKey: f.dedupeKey,
            openid: f.openid,
            msgType: 'event',
            event: 'subscribe',
            fields: f.push,
            requestId: `req-${f.dedupeKey.slice(0, 16)}`,
          })),
        );
        const rule = { count: 3, windowMs: 60_000 };
        await recordInteractions(
          client,
          batch.map((f) => ({
            appId: s.env.appId,
            openid: f.openid,
            kind: 'subscribe' as const,
            detail: null,
            at: f.at,
            rule,
          })),
        );
        await markPushesProcessed(
          client,
          ids.flatMap((id) => (id === null ? [] : [{ id, outcome: 'enrolled:0' }])),
        );
      });
    }
  } finally {
    await pool.end();
  }
  const walAfter = await walMark(databaseUrl);
  const grew = sizeGrowth(sizes, await relationSizes(databaseUrl, schema));
  return {
    count,
    wal: (walAfter.bytes - wal.bytes) / count,
    bytes: Object.fromEntries(Object.entries(grew).map(([k, b]) => [k, b / count])),
  };
}
