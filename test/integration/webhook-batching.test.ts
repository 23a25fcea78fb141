import type { Pool } from '../../src/db/pool';
import type { Service } from '../../src/main/start-service';
import { findMessage } from '../../src/store/message-store';
import { recordOutcomes } from '../../src/store/record-outcomes';
import {
  type ProcessDeps,
  processPushes,
  processStalePushes,
  STALE_PUSH_AFTER_MS,
} from '../../src/webhook/process-push';
import { createPushRecorder, type PushToRecord, recordPushes } from '../../src/webhook/record-push';
import { toPush } from '../../src/wechat/push';
import { aNewMessage, aSentOutcome, aTemplateMessage, aTextMessage } from '../helpers/builders';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';
import { seedMessages } from '../helpers/seed';

const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'batchtoken', windowPolicy: 'official' };

let h: Harness;
let service: Service;
let deps: ProcessDeps;

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api', WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });
  service = await h.start();
  const res = await h.api(service, '/v1/sequences', {
    method: 'POST',
    body: JSON.stringify({
      appId: APP_ID,
      status: 'active',
      name: 'welcome',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 30_000, message: aTextMessage('welcome') }],
    }),
  });
  expect(res.status).toBe(201);
  deps = {
    accounts: service.accounts,
    pool: service.pool,
    publisher: service.publisher,
    logger: silentLogger,
    metrics: service.metrics,
  };
});
afterAll(() => h.close());

let createTime = Math.floor(Date.now() / 1000);
/** A follow (or another event) of `openid`, as authenticated: each one a new push (its own CreateTime). */
function aPush(openid: string, event = 'subscribe', extra: Record<string, string> = {}): PushToRecord {
  const fields = {
    ToUserName: 'gh_batch',
    FromUserName: openid,
    CreateTime: String((createTime += 1)),
    MsgType: 'event',
    Event: event,
    ...extra,
  };
  return { appId: APP_ID, push: toPush(fields), requestId: `req-${openid}`, urlUse: null };
}

async function record(pushes: PushToRecord[]): Promise<number[]> {
  return (await recordPushes(service.pool, pushes)).map((r) => {
    if (r.status !== 'recorded') throw new Error(`not recorded: ${r.status}`);
    return r.id;
  });
}

const count = async (sql: string, params: unknown[]) =>
  Number((await h.db.pool.query<{ n: string }>(sql, params)).rows[0].n);
const enrollmentsOf = (prefix: string) =>
  count(`SELECT count(*) AS n FROM enrollments WHERE openid LIKE $1`, [`${prefix}%`]);
const stepsOf = (prefix: string) =>
  count(`SELECT count(*) AS n FROM scheduled_messages WHERE openid LIKE $1`, [`${prefix}%`]);
const unprocessed = (ids: number[]) =>
  count(`SELECT count(*) AS n FROM webhook_pushes WHERE id = ANY($1) AND processed_at IS NULL`, [ids]);

/** The pool, except that the first statement containing `failOn` fails (as a database error would). */
function failingOnce(pool: Pool, failOn: string): Pool {
  let failed = false;
  const connect = async () => {
    const client = await pool.connect();
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
        return (...args: unknown[]) => {
          if (!failed && typeof args[0] === 'string' && args[0].includes(failOn)) {
            failed = true;
            return Promise.reject(Object.assign(new Error('injected'), { code: '23514' }));
          }
          return query(...args);
        };
      },
    });
  };
  return new Proxy(pool, {
    get: (target, prop, receiver) => (prop === 'connect' ? connect : Reflect.get(target, prop, receiver)),
  });
}

describe('recording pushes together', () => {
  it('records each push once, answers a retry in the same batch as a duplicate, and a reused URL as replayed', async () => {
    const first = aPush('rec-1');
    const url = { appId: APP_ID, signature: 'a'.repeat(40), bodySha256: 'body-a' };
    const results = await recordPushes(service.pool, [
      { ...first, urlUse: url },
      { ...first, urlUse: url },
      { ...aPush('rec-2'), urlUse: { ...url, bodySha256: 'body-b' } },
      aPush('rec-3'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['recorded', 'duplicate', 'replayed', 'recorded']);
    expect(await count(`SELECT count(*) AS n FROM webhook_pushes WHERE openid LIKE 'rec-%'`, [])).toBe(2);
  });

  it('a push the database refuses fails alone: the others submitted with it are recorded', async () => {
    const recorder = createPushRecorder(service.pool);
    // jsonb cannot hold U+0000: this push's insert fails, as a statement error (not an outage).
    const refused = aPush('refused-1', 'CLICK', { EventKey: 'a\u0000b' });
    const answers = await Promise.allSettled(
      [aPush('refused-0'), refused, aPush('refused-2'), aPush('refused-3')].map((p) => recorder.submit(p)),
    );
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value.status : 'failed'))).toEqual([
      'recorded',
      'failed',
      'recorded',
      'recorded',
    ]);
    const openids = await h.db.pool.query(
      `SELECT openid FROM webhook_pushes WHERE openid LIKE 'refused-%' ORDER BY openid`,
    );
    expect(openids.rows.map((r) => r.openid)).toEqual(['refused-0', 'refused-2', 'refused-3']);
  });
});

describe('processing pushes together', () => {
  it('enrolls each follower once and schedules their steps, even when two processes take overlapping batches', async () => {
    const ids = await record(Array.from({ length: 40 }, (_, i) => aPush(`many-${i}`)));
    const [a, b] = await Promise.all([
      processPushes(deps, ids.slice(0, 30)),
      processPushes(deps, ids.slice(10)),
    ]);
    await processPushes(deps, ids);
    expect(a.size + b.size).toBe(40);
    expect([...a.values(), ...b.values()].every((o) => o === 'subscribe:1')).toBe(true);
    expect(await enrollmentsOf('many-')).toBe(40);
    expect(await stepsOf('many-')).toBe(40);
    expect(await unprocessed(ids)).toBe(0);
  });

  it('a database error mid-batch rolls the whole batch back, and processing it again enrolls everyone once', async () => {
    const ids = await record(Array.from({ length: 20 }, (_, i) => aPush(`midway-${i}`)));
    const failing = { ...deps, pool: failingOnce(service.pool, 'INSERT INTO enrollments') };
    await expect(processPushes(failing, ids)).rejects.toThrow('injected');
    expect(await unprocessed(ids)).toBe(20);
    expect(await enrollmentsOf('midway-')).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM interactions WHERE openid LIKE 'midway-%'`, [])).toBe(0);

    await processPushes(deps, ids);
    await processPushes(deps, ids);
    expect(await enrollmentsOf('midway-')).toBe(20);
    expect(await stepsOf('midway-')).toBe(20);
    expect(await unprocessed(ids)).toBe(0);
  });

  it("applies one follower's pushes in one batch in the order they were recorded: a follow then an unfollow leaves nothing to send", async () => {
    const [follow] = await record([aPush('order-1')]);
    const [click] = await record([aPush('order-2', 'CLICK', { EventKey: 'MENU' })]);
    const [message] = await record([aPush('order-2', 'subscribe')]);
    const [unfollow] = await record([aPush('order-1', 'unsubscribe')]);
    const outcomes = await processPushes(deps, [unfollow, message, click, follow]);
    expect(Object.fromEntries(outcomes)).toEqual({
      [follow]: 'subscribe:1',
      [click]: 'click:0',
      [message]: 'subscribe:1',
      [unfollow]: 'unsubscribed:1',
    });
    const followers = await h.db.pool.query(
      `SELECT openid, subscribed, window_kind FROM followers WHERE openid LIKE 'order-%' ORDER BY openid`,
    );
    expect(followers.rows).toEqual([
      { openid: 'order-1', subscribed: false, window_kind: null },
      { openid: 'order-2', subscribed: true, window_kind: 'subscribe' },
    ]);
    const steps = await h.db.pool.query(
      `SELECT status FROM scheduled_messages WHERE openid = '' OR openid LIKE 'order-%' ORDER BY status`,
    );
    expect(steps.rows.map((r) => r.status)).toEqual(['cancelled', 'queued']);
  });
});

describe('a template delivery report', () => {
  const reportOf = (openid: string, msgid: string) =>
    aPush(openid, 'TEMPLATESENDJOBFINISH', { MsgID: msgid, Status: 'success' });
  const backdate = (ids: number[]) =>
    h.db.pool.query(
      `UPDATE webhook_pushes SET received_at = received_at - $2 * interval '1 millisecond' WHERE id = ANY($1)`,
      [ids, STALE_PUSH_AFTER_MS + 1000],
    );

  it('pushed before the worker recorded the send waits for the sweep of stale pushes, and lands then', async () => {
    const openid = 'report-early';
    const [id] = await seedMessages(
      h.db.pool,
      [aNewMessage({ appId: APP_ID, openid, channel: 'template', payload: aTemplateMessage() })],
      { status: 'sending', attempts: 1 },
    );
    // WeChat answers the send, then pushes the report: here the push is processed first.
    const [push] = await record([reportOf(openid, '300000001')]);
    expect(Object.fromEntries(await processPushes(deps, [push]))).toEqual({
      [push]: 'template_report:delivered:later',
    });
    expect(await unprocessed([push])).toBe(1);

    await recordOutcomes(service.pool, [aSentOutcome(id, '300000001')]);
    await backdate([push]);
    expect(await processStalePushes(deps, STALE_PUSH_AFTER_MS, 10)).toBe(1);
    expect(await unprocessed([push])).toBe(0);
    expect(await findMessage(h.db.pool, id)).toMatchObject({ status: 'sent', deliveryReport: 'delivered' });
  });

  it('for a send the service never made is done once the sweep found nothing either', async () => {
    const [push] = await record([reportOf('report-foreign', '300000002')]);
    await backdate([push]);
    expect(Object.fromEntries(await processPushes(deps, [push]))).toEqual({
      [push]: 'template_report:delivered:0',
    });
    expect(await unprocessed([push])).toBe(0);
  });
});
