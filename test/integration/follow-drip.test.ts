import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness, waitFor } from '../helpers/harness';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { aSimTemplate, aTextMessage } from '../helpers/builders';
import { createSequence, receivedTexts, SHORT_WINDOWS } from '../helpers/drip';

const ACCOUNT = {
  appId: APP_ID,
  secret: 'test-secret',
  token: 'driptoken',
  encodingAESKey: 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
  pushMode: 'safe',
  windowPolicy: SHORT_WINDOWS,
};

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness(
    { WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) },
    { enforceContactWindow: true, templates: [aSimTemplate('tpl-course')] },
  );
  service = await h.start();
});
afterAll(() => h.close());

describe('follow → drip', () => {
  it('a follow from the qrscene_spring code starts "spring welcome" and its three steps arrive', async () => {
    await createSequence(h, service, {
      name: 'spring welcome',
      trigger: { type: 'subscribe', scene: 'spring' },
      steps: [0, 500, 1000].map((offsetMs, i) => ({ offsetMs, message: aTextMessage(`spring ${i + 1}`) })),
    });
    await createSequence(h, service, {
      name: 'generic welcome',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 0, message: aTextMessage('generic') }],
    });
    const { pushes } = await h.simulator.push('follow', 'o-spring', { appId: APP_ID, scene: 'spring' });
    expect(pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    expect(await waitFor(() => receivedTexts(h, 'o-spring').length === 3, 10_000)).toBe(true);
    await expectNothingMore(
      'step of the generic welcome, or a step twice',
      () => receivedTexts(h, 'o-spring').length > 3,
      500,
    );
    expect(receivedTexts(h, 'o-spring')).toEqual(['spring 1', 'spring 2', 'spring 3']);
  });

  it("WeChat's retried pushes, even concurrent, start nothing twice", async () => {
    const { pushes } = await h.simulator.push('follow', 'o-retry', {
      appId: APP_ID,
      scene: 'spring',
      repeat: 4,
      concurrent: true,
    });
    expect(pushes.map((p) => p.body)).toEqual(['success', 'success', 'success', 'success']);
    expect(await waitFor(() => receivedTexts(h, 'o-retry').length === 3, 10_000)).toBe(true);
    await expectNothingMore(
      'step sent twice for a retried push',
      () => receivedTexts(h, 'o-retry').length > 3,
      1000,
    );
    expect(receivedTexts(h, 'o-retry')).toHaveLength(3);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM enrollments WHERE openid = 'o-retry'`,
    );
    expect(rows[0].n).toBe(1);
  });

  it('a user message gets the keyword sequence: five steps spread over the message window', async () => {
    await createSequence(h, service, {
      name: 'course drip',
      trigger: { type: 'keyword', keyword: '课程' },
      steps: [0, 1000, 2000, 3000, 4000].map((offsetMs, i) => ({
        offsetMs,
        message: aTextMessage(`course ${i + 1}`),
      })),
    });
    await h.simulator.push('message', 'o-course', { appId: APP_ID, content: '我想了解课程' });
    expect(await waitFor(() => receivedTexts(h, 'o-course').length === 5, 15_000)).toBe(true);
    expect(receivedTexts(h, 'o-course')).toEqual([
      'course 1',
      'course 2',
      'course 3',
      'course 4',
      'course 5',
    ]);
  });

  it("a step beyond the click's window allowance goes out as its template fallback", async () => {
    const fallback = { template_id: 'tpl-course', data: { first: { value: '课程提醒' } } };
    await createSequence(h, service, {
      name: 'menu drip',
      trigger: { type: 'click', key: 'COURSE' },
      steps: [
        ...[0, 300, 600].map((offsetMs, i) => ({ offsetMs, message: aTextMessage(`menu ${i + 1}`) })),
        { offsetMs: 900, message: aTextMessage('menu 4'), fallback },
      ],
    });
    await h.simulator.push('click', 'o-menu', { appId: APP_ID, key: 'COURSE' });
    const sends = () => h.simulator.messages({ appId: APP_ID, openid: 'o-menu' });
    expect(await waitFor(() => sends().length === 4, 10_000)).toBe(true);
    expect(sends().map((m) => m.channel)).toEqual(['custom', 'custom', 'custom', 'template']);
    expect(sends()[3].body).toMatchObject({ touser: 'o-menu', ...fallback });
  });

  it('an unfollow in between cancels the rest with one ledger row and wipes the follower data', async () => {
    await h.simulator.push('message', 'o-leaver', { appId: APP_ID, content: '课程表' });
    await waitFor(() => receivedTexts(h, 'o-leaver').length >= 2, 10_000);
    await h.simulator.push('unfollow', 'o-leaver', { appId: APP_ID });
    // The last step falls due 4 s after the trigger: watch that long for it to arrive anyway.
    await expectNothingMore(
      'last step after the unfollow',
      () => receivedTexts(h, 'o-leaver').length >= 5,
      4000,
    );
    const ledger = await h.db.pool.query(`SELECT scope, reason FROM cancellations WHERE target = 'o-leaver'`);
    expect(ledger.rows).toEqual([{ scope: 'follower', reason: 'unsubscribed' }]);
    const left = await h.db.pool.query(
      `SELECT (SELECT count(*)::int FROM interactions WHERE openid = 'o-leaver') AS interactions,
              (SELECT count(*)::int FROM scheduled_messages WHERE openid = 'o-leaver') AS messages,
              (SELECT count(*)::int FROM webhook_pushes WHERE openid = 'o-leaver' OR fields::text LIKE '%o-leaver%') AS pushes,
              (SELECT count(*)::int FROM enrollments WHERE openid = 'o-leaver') AS enrollments,
              (SELECT subscribed FROM followers WHERE openid = 'o-leaver') AS subscribed`,
    );
    expect(left.rows[0]).toEqual({
      interactions: 0,
      messages: 0,
      pushes: 0,
      enrollments: 0,
      subscribed: false,
    });
    const counts = await h.db.pool.query(
      // The leaver's rows, now without openid or payload: they stay as anonymous per-step counts.
      `SELECT m.status, count(*)::int AS n FROM scheduled_messages m JOIN sequences s ON s.id = m.sequence_id
       WHERE s.name = 'course drip' AND m.openid = '' GROUP BY m.status ORDER BY m.status`,
    );
    expect(counts.rows.reduce((n, r) => n + r.n, 0)).toBe(5); // anonymous counts remain per step
  });

  it('a re-follow starts fresh', async () => {
    await h.simulator.push('follow', 'o-leaver', { appId: APP_ID, scene: 'spring' });
    expect(
      await waitFor(
        () => receivedTexts(h, 'o-leaver').filter((t) => t.startsWith('spring')).length === 3,
        10_000,
      ),
    ).toBe(true);
  });
});
