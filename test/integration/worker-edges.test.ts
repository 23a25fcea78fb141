import { randomUUID } from 'node:crypto';
import amqplib from 'amqplib';
import { queueDepth } from '../helpers/broker';
import { APP_ID, createHarness, type Harness, waitFor } from '../helpers/harness';
import { runCli } from '../helpers/services';
import { clientMsgIdOf } from '../../src/wechat/client';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { aSimTemplate, aMessageRequest, aNewMessage, aTextMessage } from '../helpers/builders';
import { seedMessages } from '../helpers/seed';

let h: Harness;
afterEach(() => h?.close());

async function insertStuckSending(tag: string, claimedSecondsAgo: number): Promise<string> {
  const [id] = await seedMessages(
    h.db.pool,
    [aNewMessage({ openid: 'o-stuck', payload: aTextMessage(tag) })],
    {
      status: 'sending',
      attempts: 1,
      claimedSecondsAgo,
    },
  );
  return id;
}

describe('rows stuck in sending (the worker died mid-send)', () => {
  it('become unknown and are not resent by default', async () => {
    h = await createHarness(
      { SENDING_TIMEOUT_MS: '1000', RELAY_INTERVAL_MS: '100' },
      { templates: [aSimTemplate('TPL')] },
    );
    const id = await insertStuckSending(randomUUID(), 5);
    await h.start({ ROLE: 'worker' });
    const swept = await waitFor(async () => {
      const { rows } = await h.db.pool.query(
        'SELECT status, status_reason FROM scheduled_messages WHERE id = $1',
        [id],
      );
      return rows[0].status === 'unknown' && rows[0].status_reason === 'sending_timeout';
    }, 5000);
    expect(swept).toBe(true);
    await expectNothingMore('send of the row swept to unknown', () => h.simulator.messages().length > 0, 500);
  });

  it('are sent again, once, for an account that opted into at-least-once', async () => {
    h = await createHarness(
      { SENDING_TIMEOUT_MS: '1000', RELAY_INTERVAL_MS: '100' },
      { templates: [aSimTemplate('TPL')] },
    );
    const tag = randomUUID();
    const id = await insertStuckSending(tag, 5);
    await h.start({
      ROLE: 'worker',
      WECHAT_ACCOUNTS: JSON.stringify([
        { appId: APP_ID, secret: 'test-secret', atLeastOnce: true, windowPolicy: 'none' },
      ]),
    });
    const sent = await waitFor(async () => {
      const { rows } = await h.db.pool.query('SELECT status FROM scheduled_messages WHERE id = $1', [id]);
      return rows[0].status === 'sent';
    }, 5000);
    expect(sent).toBe(true);
    await expectNothingMore('second send of the resent row', () => h.simulator.messages().length > 1, 500);
    expect(h.simulator.messages().map((m) => (m.body as { text: { content: string } }).text.content)).toEqual(
      [tag],
    );
  });
});

async function insertStuckTemplate(openid: string, claimedSecondsAgo: number): Promise<string> {
  const [id] = await seedMessages(
    h.db.pool,
    [aNewMessage({ openid, channel: 'template', payload: TEMPLATE })],
    { status: 'sending', attempts: 1, claimedSecondsAgo },
  );
  return id;
}

const TEMPLATE = { template_id: 'TPL', data: { first: { value: 'your order shipped' } } };

/** What the killed worker did before it died: its send of the row reached WeChat. */
async function sendAsTheKilledWorker(id: string, openid: string): Promise<void> {
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(`${h.simulatorUrl}${path}`, { method: 'POST', body: JSON.stringify(body) })
    ).json()) as { access_token?: string; errcode?: number };
  const { access_token: token } = await post('/cgi-bin/stable_token', {
    grant_type: 'client_credential',
    appid: APP_ID,
    secret: 'test-secret',
  });
  const answer = await post(`/cgi-bin/message/template/send?access_token=${token}`, {
    touser: openid,
    ...TEMPLATE,
    client_msg_id: clientMsgIdOf(id),
  });
  expect(answer.errcode).toBe(0);
}

describe('template rows stuck in sending (the worker died mid-send)', () => {
  const statusOf = async (id: string) =>
    (await h.db.pool.query<{ status: string }>('SELECT status FROM scheduled_messages WHERE id = $1', [id]))
      .rows[0].status;

  it('are sent again with the same client_msg_id, and WeChat delivers each once', async () => {
    h = await createHarness(
      { SENDING_TIMEOUT_MS: '1000', RELAY_INTERVAL_MS: '100' },
      { templates: [aSimTemplate('TPL')] },
    );
    // One the dead worker's send reached WeChat with, one it died before sending.
    const reached = await insertStuckTemplate('o-reached', 5);
    const lost = await insertStuckTemplate('o-lost', 5);
    await sendAsTheKilledWorker(reached, 'o-reached');
    await h.start({ ROLE: 'worker' });
    const sent = await waitFor(
      async () => (await statusOf(reached)) === 'sent' && (await statusOf(lost)) === 'sent',
      5000,
    );
    expect(sent).toBe(true);
    const received = h.simulator.messages();
    expect(received.map((m) => m.openid).sort()).toEqual(['o-lost', 'o-reached']);
    expect(received.map((m) => (m.body as { client_msg_id: string }).client_msg_id).sort()).toEqual(
      [clientMsgIdOf(lost), clientMsgIdOf(reached)].sort(),
    );
    // The resend of the one that had reached WeChat was answered as a repeat, not delivered again.
    expect(h.simulator.stats().deduplicated).toBe(1);
  });

  it('become unknown once WeChat would no longer recognise the resend (claimed over 9 minutes ago)', async () => {
    h = await createHarness(
      { SENDING_TIMEOUT_MS: '1000', RELAY_INTERVAL_MS: '100' },
      { templates: [aSimTemplate('TPL')] },
    );
    const id = await insertStuckTemplate('o-old', 10 * 60);
    await h.start({ ROLE: 'worker' });
    expect(await waitFor(async () => (await statusOf(id)) === 'unknown', 5000)).toBe(true);
    await expectNothingMore(
      'send of a resend WeChat would not recognise',
      () => h.simulator.messages().length > 0,
      500,
    );
  });
});

describe('a message on the due queue that is not a wake-up', () => {
  it('is dead-lettered, and the worker carries on', async () => {
    h = await createHarness();
    const service = await h.start();
    const model = await amqplib.connect(h.env.RABBITMQ_URL);
    const channel = await model.createConfirmChannel();
    channel.sendToQueue(`${h.prefix}.due`, Buffer.from('not a wake-up'), { persistent: true });
    await channel.waitForConfirms();
    await model.close();
    const dead = await waitFor(
      async () => (await queueDepth(h.env.RABBITMQ_URL, `${h.prefix}.dead`)) === 1,
      5000,
    );
    expect(dead).toBe(true);
    const res = await h.api(service, '/v1/messages', {
      method: 'POST',
      body: JSON.stringify(
        aMessageRequest({
          openid: 'o1',
          message: aTextMessage('after'),
        }),
      ),
    });
    expect(res.status).toBe(201);
    expect(await waitFor(() => h.simulator.messages().length === 1, 5000)).toBe(true);
  });
});

describe('npm run replay-dead', () => {
  it('puts a failed message back and delivers it once', async () => {
    h = await createHarness({ RETRY_MAX_ATTEMPTS: '1' });
    const service = await h.start();
    h.simulator.setFaults({ forceErrcode: -1 });
    const tag = randomUUID();
    const res = await h.api(service, '/v1/messages', {
      method: 'POST',
      body: JSON.stringify(
        aMessageRequest({
          openid: 'o-dead',
          message: aTextMessage(tag),
        }),
      ),
    });
    const { id } = (await res.json()) as { id: string };
    const dead = await waitFor(
      async () => (await queueDepth(h.env.RABBITMQ_URL, `${h.prefix}.dead`)) === 1,
      10_000,
    );
    expect(dead).toBe(true);
    h.simulator.clearFaults();

    const { code, out } = await runCli('replay-dead', [], h.env, h.db.schema);
    expect(code).toBe(0);
    expect(out).toContain('replayed 1, dropped 0');
    expect(await waitFor(() => h.simulator.messages().length === 1, 5000)).toBe(true);
    const { rows } = await h.db.pool.query('SELECT status FROM scheduled_messages WHERE id = $1', [id]);
    expect(rows[0].status).toBe('sent');
    expect(await queueDepth(h.env.RABBITMQ_URL, `${h.prefix}.dead`)).toBe(0);
  });
});

describe('npm run resume-account', () => {
  it('lifts a 45009 pause so the held messages go out now instead of at the quota reset', async () => {
    h = await createHarness();
    const service = await h.start();
    h.simulator.setFaults({ forceErrcode: 45009, count: 1 });
    const tag = randomUUID();
    const res = await h.api(service, '/v1/messages', {
      method: 'POST',
      body: JSON.stringify(
        aMessageRequest({
          openid: 'o-quota',
          message: aTextMessage(tag),
        }),
      ),
    });
    const { id } = (await res.json()) as { id: string };
    const paused = await waitFor(async () => {
      const { rows } = await h.db.pool.query('SELECT due_at FROM scheduled_messages WHERE id = $1', [id]);
      return rows[0].due_at.getTime() > Date.now() + 60_000;
    }, 10_000);
    expect(paused).toBe(true);

    const { code, out } = await runCli('resume-account', [APP_ID], h.env, h.db.schema);
    expect(code).toBe(0);
    expect(out).toContain(`resumed ${APP_ID}: 1 held messages due again, 1 woken`);
    expect(await waitFor(() => h.simulator.messages().length === 1, 5000)).toBe(true);
    const { rows } = await h.db.pool.query('SELECT app_id FROM account_states WHERE app_id = $1', [APP_ID]);
    expect(rows).toEqual([]);
  });
});
