import type { FollowerEventView } from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { CLAIM_LOCK_KEY } from '../../src/store/ledger';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { anOpenid } from '../helpers/builders';
import {
  createSequence,
  exitsCountedBy,
  expectEventually,
  receivedTexts,
  SHORT_WINDOWS,
  textSteps,
} from '../helpers/drip';

const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'eventtoken', windowPolicy: SHORT_WINDOWS };

let h: Harness;
let service: Service;
let shop = '';
let thanks = '';

beforeAll(async () => {
  h = await createHarness({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) }, { enforceContactWindow: true });
  service = await h.start();
  shop = await createSequence(h, service, {
    name: 'shop drip',
    trigger: { type: 'scan', scene: 'shop' },
    steps: textSteps('shop', [0, 2500]),
    exits: [{ type: 'event', name: 'purchased' }],
  });
  thanks = await createSequence(h, service, {
    name: 'thanks',
    trigger: { type: 'event', name: 'purchased' },
    steps: textSteps('thanks', [0]),
  });
});
afterAll(() => h.close());

const send = (method: string, path: string, body?: unknown) =>
  h.api(service, path, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
const postEvent = (openid: string, body: unknown, appId = APP_ID) =>
  send('POST', `/v1/followers/${appId}/${openid}/events`, body);

/** Row counts of every table an event writes to. */
async function written(): Promise<Record<string, number>> {
  const { rows } = await h.db.pool.query(
    `SELECT (SELECT count(*)::int FROM follower_events) AS events,
            (SELECT count(*)::int FROM cancellations) AS cancellations,
            (SELECT count(*)::int FROM enrollments) AS enrollments,
            (SELECT count(*)::int FROM scheduled_messages) AS messages`,
  );
  return rows[0];
}

/** Scans the shop code and waits for the first shop step: the follower has a running "shop drip". */
async function shopping(label: string): Promise<string> {
  const openid = anOpenid(label);
  await h.simulator.push('scan', openid, { appId: APP_ID, scene: 'shop' });
  await expectEventually('shop 1', () => receivedTexts(h, openid).includes('shop 1'));
  return openid;
}

describe('POST /v1/followers/:appId/:openid/events', () => {
  it('ends the enrollment the event is an exit of and starts the sequence it triggers', async () => {
    const openid = await shopping('o-buyer');
    const exitsCounted = await exitsCountedBy(service);
    const res = await postEvent(openid, { name: 'purchased', idempotencyKey: 'order-1' });
    expect(res.status).toBe(201);
    const answer = (await res.json()) as FollowerEventView;
    expect(answer).toEqual({
      eventId: expect.any(String),
      name: 'purchased',
      at: expect.any(String),
      exited: [
        { sequenceId: shop, enrollmentId: expect.any(String), reason: 'exit:event:purchased', cancelled: 1 },
      ],
      enrolled: [{ sequenceId: thanks, enrollmentId: expect.any(String), steps: 1 }],
      continued: [],
      converted: 0,
    });
    await expectEventually('thanks 1', () => receivedTexts(h, openid).includes('thanks 1'));
    await expectNothingMore('shop 2 after the exit', () => receivedTexts(h, openid).includes('shop 2'), 2500);
    const ledger = await h.db.pool.query(
      `SELECT scope, target, reason, actor FROM cancellations WHERE scope = 'enrollment' AND target = $1`,
      [answer.exited[0].enrollmentId],
    );
    expect(ledger.rows).toEqual([
      {
        scope: 'enrollment',
        target: answer.exited[0].enrollmentId,
        reason: 'exit:event:purchased',
        actor: 'api',
      },
    ]);
    const counts = (await (await send('GET', `/v1/sequences/${shop}/results`)).json()) as {
      exited: Record<string, number>;
    };
    expect(counts.exited).toEqual({ 'exit:event:purchased': 1 });
    expect(await exitsCountedBy(service)).toBe(exitsCounted + 1);

    // The same key again: the first answer, and nothing written.
    const before = await written();
    const again = await postEvent(openid, { name: 'purchased', idempotencyKey: 'order-1' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(answer);
    // The same key for another event is a conflict.
    const other = await postEvent(openid, { name: 'refunded', idempotencyKey: 'order-1' });
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    expect(await written()).toEqual(before);
  });

  it('answers concurrent requests with one key alike, recording the event once', async () => {
    const openid = await shopping('o-twice');
    const answers = await Promise.all(
      [1, 2, 3].map(() => postEvent(openid, { name: 'purchased', idempotencyKey: 'order-2' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
    const bodies = await Promise.all(answers.map((a) => a.json()));
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    const events = await h.db.pool.query(`SELECT count(*)::int AS n FROM follower_events WHERE openid = $1`, [
      openid,
    ]);
    expect(events.rows[0].n).toBe(1);
  });

  it('enrolls a follower it has never seen, opening no contact window', async () => {
    const openid = anOpenid('o-stranger');
    const res = await postEvent(openid, { name: 'purchased' });
    expect(await res.json()).toMatchObject({ exited: [], enrolled: [{ sequenceId: thanks, steps: 1 }] });
    const timeline = async () =>
      (await (await send('GET', `/v1/followers/${APP_ID}/${openid}`)).json()) as {
        follower: unknown;
        interactions: unknown[];
        messages: { status: string; statusReason: string | null }[];
      };
    await expectEventually(
      'the step to be decided',
      async () => (await timeline()).messages[0]?.status === 'skipped',
    );
    expect(await timeline()).toMatchObject({
      follower: null,
      interactions: [],
      messages: [{ status: 'skipped', statusReason: 'window_closed' }],
    });
  });

  it('enrolls once ever in a oncePerFollower sequence, however many events', async () => {
    const vip = await createSequence(h, service, {
      name: 'vip',
      trigger: { type: 'event', name: 'vip' },
      steps: textSteps('vip', [0]),
      oncePerFollower: true,
    });
    const openid = anOpenid('o-vip');
    const first = (await (await postEvent(openid, { name: 'vip' })).json()) as FollowerEventView;
    const second = (await (await postEvent(openid, { name: 'vip' })).json()) as FollowerEventView;
    expect(first.enrolled).toEqual([{ sequenceId: vip, enrollmentId: expect.any(String), steps: 1 }]);
    expect(second.enrolled).toEqual([]);
  });

  it('waits for a claim in flight on the account before it counts what it ends', async () => {
    const openid = await shopping('o-claimed');
    const claim = await h.db.pool.connect();
    try {
      await claim.query('BEGIN');
      await claim.query(`SELECT pg_advisory_xact_lock_shared(${CLAIM_LOCK_KEY('$1::text')})`, [APP_ID]);
      let answered = false;
      const pending = postEvent(openid, { name: 'purchased' }).then((r) => {
        answered = true;
        return r;
      });
      await expectNothingMore('answer while a claim holds the account', () => answered, 500);
      await claim.query('COMMIT');
      expect(await (await pending).json()).toMatchObject({ exited: [{ sequenceId: shop, cancelled: 1 }] });
    } finally {
      claim.release();
    }
  });

  it("an unfollow erases the openid of the follower's events, and a repeated key still answers", async () => {
    const openid = await shopping('o-gone');
    const first = await (await postEvent(openid, { name: 'purchased', idempotencyKey: 'order-3' })).json();
    await h.simulator.push('unfollow', openid, { appId: APP_ID });
    await expectEventually('the events erased', async () => {
      const { rows } = await h.db.pool.query(
        `SELECT count(*)::int AS n FROM follower_events WHERE openid = $1`,
        [openid],
      );
      return rows[0].n === 0;
    });
    const again = await postEvent(openid, { name: 'purchased', idempotencyKey: 'order-3' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
  });

  it.each<[string, string, unknown, number, string]>([
    ['an unknown account', 'o-ok', { name: 'purchased' }, 404, 'wxnotconfigured01'],
    ['an openid with a bad character', 'o.bad', { name: 'purchased' }, 400, APP_ID],
    ['a missing name', 'o-ok', {}, 400, APP_ID],
    ['an empty name', 'o-ok', { name: '' }, 400, APP_ID],
    ['a name with a space', 'o-ok', { name: 'bought it' }, 400, APP_ID],
    ['an unknown field', 'o-ok', { name: 'purchased', at: 'now' }, 400, APP_ID],
    ['a NUL in the name', 'o-ok', { name: 'purchased\u0000' }, 400, APP_ID],
    ['an empty idempotencyKey', 'o-ok', { name: 'purchased', idempotencyKey: '' }, 400, APP_ID],
    ['a body over the limit', 'o-ok', { name: 'purchased', padding: 'x'.repeat(70_000) }, 413, APP_ID],
    ['a body that is not JSON', 'o-ok', 'name=purchased', 400, APP_ID],
  ])('refuses %s with a clear 4xx, and writes nothing', async (_what, openid, body, status, appId) => {
    const before = await written();
    const res = await postEvent(openid, body, appId);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error: expect.objectContaining({ code: expect.any(String) }) });
    expect(await written()).toEqual(before);
  });
});
