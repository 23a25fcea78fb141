import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness, waitFor } from '../helpers/harness';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { aSimTemplate, aMessageRequest, aNewMessage, aTextMessage } from '../helpers/builders';
import { seedMessages } from '../helpers/seed';

const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'remindtoken', windowPolicy: 'official' };

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness(
    { WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]), RELAY_INTERVAL_MS: '100', RELAY_PENDING_AFTER_MS: '100' },
    { enforceContactWindow: true, templates: [aSimTemplate('tpl-meeting')] },
  );
  service = await h.start();
});
afterAll(() => h.close());

const template = (first: string) => ({ template_id: 'tpl-meeting', data: { first: { value: first } } });
const call = async (method: string, path: string, body?: unknown) => {
  const res = await h.api(service, path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const firsts = (openid: string) =>
  h.simulator
    .messages({ appId: APP_ID, openid })
    .map((m) => (m.body as { data: { first: { value: string } } }).data.first.value);

/** wechat_drip_messages_scheduled_total over every channel. */
const scheduledTotal = async () =>
  (await service.metrics.scheduled.get()).values.reduce((n, v) => n + v.value, 0);

describe('reminders for other systems', () => {
  it('sends a template reminder to a follower outside any contact window', async () => {
    await h.simulator.push('follow', 'o-tpl', { appId: APP_ID }); // a follower, but the 1-min window is not used
    const { status } = await call(
      'POST',
      '/v1/messages',
      aMessageRequest({
        openid: 'o-tpl',
        channel: 'template',
        message: template('课程 15 分钟后开始'),
      }),
    );
    expect(status).toBe(201);
    expect(await waitFor(() => firsts('o-tpl').length === 1, 5000)).toBe(true);
  });

  it('skips a customer-service message for a follower with no open window, without calling WeChat', async () => {
    const { body } = await call(
      'POST',
      '/v1/messages',
      aMessageRequest({
        openid: 'o-nowindow',
        message: aTextMessage('x'),
      }),
    );
    await waitFor(async () => (await call('GET', `/v1/messages/${body.id}`)).body.status === 'skipped', 5000);
    expect((await call('GET', `/v1/messages/${body.id}`)).body).toMatchObject({
      status: 'skipped',
      statusReason: 'window_closed',
    });
    expect(h.simulator.messages({ openid: 'o-nowindow' })).toHaveLength(0);
  });

  it('moves a meeting reminder by id: it arrives at its new time only', async () => {
    await h.simulator.push('follow', 'o-move', { appId: APP_ID });
    const first = await call(
      'POST',
      '/v1/messages',
      aMessageRequest({
        openid: 'o-move',
        channel: 'template',
        message: template('old time'),
        delayMs: 60_000,
      }),
    );
    const before = await scheduledTotal();
    const moved = await call('PUT', `/v1/messages/${first.body.id}`, {
      delayMs: 1000,
      message: template('new time'),
    });
    expect(moved.status).toBe(201);
    expect(await scheduledTotal()).toBe(before + 1); // the replacement is scheduled like any message
    expect(moved.body).toMatchObject({ replaces: first.body.id, status: 'queued' });
    expect((await call('GET', `/v1/messages/${first.body.id}`)).body.status).toBe('cancelled');
    expect(await waitFor(() => firsts('o-move').length === 1, 5000)).toBe(true);
    expect(firsts('o-move')).toEqual(['new time']);
    expect((await call('PUT', `/v1/messages/${first.body.id}`, { delayMs: 1 })).status).toBe(409);
    expect((await call('PUT', `/v1/messages/${moved.body.id}`, {})).status).toBe(400);
  });

  it('moves every reminder of a meeting by its cancel key, atomically', async () => {
    await h.simulator.push('follow', 'o-key', { appId: APP_ID });
    for (const when of ['15 min before', '5 min before']) {
      await call(
        'POST',
        '/v1/messages',
        aMessageRequest({
          openid: 'o-key',
          channel: 'template',
          message: template(when),
          delayMs: 60_000,
          cancelKey: 'meeting-9',
        }),
      );
    }
    const before = await scheduledTotal();
    const moved = await call('PUT', `/v1/messages/by-key/${APP_ID}/meeting-9`, {
      openid: 'o-key',
      channel: 'template',
      message: template('moved meeting'),
      delayMs: 800,
    });
    expect(moved.status).toBe(201);
    expect(await scheduledTotal()).toBe(before + 1);
    expect(moved.body).toMatchObject({ cancelled: 2, cancelKey: 'meeting-9' });
    expect(await waitFor(() => firsts('o-key').length === 1, 5000)).toBe(true);
    await expectNothingMore('second reminder for the moved meeting', () => firsts('o-key').length > 1, 500);
    expect(firsts('o-key')).toEqual(['moved meeting']);
  });

  it('skips a reminder that would arrive later than its maxLatenessMs (stale) instead of sending it late', async () => {
    await h.simulator.push('follow', 'o-stale', { appId: APP_ID });
    // A reminder that fell due 10 s ago while nothing ran (as after an outage), worth sending up to 2 s late.
    const [id] = await seedMessages(
      h.db.pool,
      [
        aNewMessage({
          openid: 'o-stale',
          channel: 'template',
          payload: template('too late'),
          dueAt: new Date(Date.now() - 10_000),
          maxLatenessMs: 2000,
        }),
      ],
      { updatedSecondsAgo: 60 },
    );
    await waitFor(async () => (await call('GET', `/v1/messages/${id}`)).body.status === 'skipped', 5000);
    expect((await call('GET', `/v1/messages/${id}`)).body).toMatchObject({
      status: 'skipped',
      statusReason: 'stale',
    });
    expect(firsts('o-stale')).toEqual([]);
  });

  it('refuses a maxLatenessMs below a second', async () => {
    const { status, body } = await call(
      'POST',
      '/v1/messages',
      aMessageRequest({
        openid: 'o1',
        channel: 'template',
        message: template('x'),
        maxLatenessMs: 5,
      }),
    );
    expect(status).toBe(400);
    expect(body.error.details[0].path).toBe('maxLatenessMs');
  });
});

describe('what the admin page reads', () => {
  it('lists the accounts with their window policy', async () => {
    const { body } = await call('GET', '/v1/accounts');
    expect(body.accounts).toEqual([
      expect.objectContaining({
        appId: APP_ID,
        webhook: true,
        policyName: 'official',
        windowPolicy: expect.objectContaining({ subscribe: { count: 3, windowMs: 60_000 } }),
      }),
    ]);
  });

  it('validates a sequence without saving it', async () => {
    const seq = {
      appId: APP_ID,
      name: 'v',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 7_200_000, message: aTextMessage('x') }],
    };
    const res = await call('POST', '/v1/sequences/validate', seq);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('steps.0');
    expect(
      (await call('POST', '/v1/sequences/validate', { ...seq, steps: [{ ...seq.steps[0], offsetMs: 0 }] }))
        .body,
    ).toEqual({ ok: true, warnings: [] });
    expect((await h.db.pool.query('SELECT count(*)::int AS n FROM sequences')).rows[0].n).toBe(0);
  });

  it('reports results per step and test-sends a step to an operator through the normal path', async () => {
    const created = await call('POST', '/v1/sequences', {
      appId: APP_ID,
      name: 'results',
      status: 'active',
      trigger: { type: 'subscribe', scene: 'res' },
      steps: [0, 500].map((offsetMs, i) => ({
        offsetMs,
        message: aTextMessage(`step ${i}`),
      })),
    });
    await h.simulator.push('follow', 'o-res', { appId: APP_ID, scene: 'res' });
    await waitFor(() => h.simulator.messages({ openid: 'o-res' }).length === 2, 5000);
    await waitFor(
      async () => (await call('GET', `/v1/sequences/${created.body.id}/results`)).body.steps?.[1]?.sent === 1,
      3000,
    );
    const results = (await call('GET', `/v1/sequences/${created.body.id}/results`)).body;
    expect(results).toMatchObject({
      enrolled: 1,
      steps: [
        { stepIndex: 0, sent: 1, scheduled: 1 },
        { stepIndex: 1, sent: 1 },
      ],
    });
    expect(results.steps[0].latenessMs.p50).toBeGreaterThanOrEqual(0);
    expect(results.series.reduce((n: number, b: { sent: number }) => n + b.sent, 0)).toBe(2);

    await h.simulator.push('message', 'o-operator', { appId: APP_ID, content: 'test me' });
    // The webhook answers once the push is stored and processes it just after: the window is open once
    // it is processed.
    const windowOpened = async () =>
      (
        await h.db.pool.query(
          `SELECT 1 FROM webhook_pushes WHERE openid = 'o-operator' AND processed_at IS NOT NULL`,
        )
      ).rowCount === 1;
    expect(await waitFor(windowOpened, 5000)).toBe(true);
    const sent = await call('POST', `/v1/sequences/${created.body.id}/test-send`, {
      openid: 'o-operator',
      stepIndex: 1,
    });
    expect(sent.status).toBe(201);
    expect(await waitFor(() => h.simulator.messages({ openid: 'o-operator' }).length === 1, 5000)).toBe(true);
    expect(
      (
        await call('POST', `/v1/sequences/${created.body.id}/test-send`, {
          openid: 'o-operator',
          stepIndex: 5,
        })
      ).status,
    ).toBe(400);
  });
});

describe('stale after a retry', () => {
  it('counts maxLatenessMs from the time the reminder was meant for, not from its last retry', async () => {
    await h.simulator.push('follow', 'o-retried', { appId: APP_ID });
    // Meant for 10 s ago, worth 2 s of lateness, but retried since: due_at moved to now.
    const [id] = await seedMessages(
      h.db.pool,
      [
        aNewMessage({
          openid: 'o-retried',
          channel: 'template',
          payload: template('retried too late'),
          dueAt: new Date(Date.now() - 10_000),
          maxLatenessMs: 2000,
        }),
      ],
      { attempts: 1, updatedSecondsAgo: 60 },
    );
    await h.db.pool.query(`UPDATE scheduled_messages SET due_at = now() WHERE id = $1`, [id]);
    await waitFor(async () => (await call('GET', `/v1/messages/${id}`)).body.status === 'skipped', 5000);
    expect((await call('GET', `/v1/messages/${id}`)).body).toMatchObject({
      status: 'skipped',
      statusReason: 'stale',
    });
    expect(firsts('o-retried')).toEqual([]);
  });
});
