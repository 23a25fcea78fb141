import type { SimulatorAccount } from '../../src/simulator/config';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import { PushRequestError } from '../../src/simulator/pushes';
import { createPushCrypto } from '../../src/wechat/crypto';
import { extractEncrypt, parsePushBody, toPush } from '../../src/wechat/push';
import { signatureMatches } from '../../src/wechat/signature';
import { closedPort, startFakeWebhook, type FakeWebhook, type ReceivedPush } from '../helpers/fake-webhook';
import { silentLogger } from '../helpers/logger';

const TOKEN = 'pushtoken';
const KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const START = Date.parse('2026-11-21T10:00:00Z');
const account = (n: number, extra: Partial<SimulatorAccount> = {}): SimulatorAccount => ({
  appId: `wxfollow000000${n}`,
  secret: `secret-${n}`,
  token: TOKEN,
  encodingAESKey: KEY,
  ...extra,
});
const PLAIN_XML = account(1);
const MODES = [
  PLAIN_XML,
  account(2, { pushFormat: 'json' }),
  account(3, { pushMode: 'safe' }),
  account(4, { pushMode: 'safe', pushFormat: 'json' }),
  account(5, { pushMode: 'compatible' }),
  account(6, { pushMode: 'compatible', pushFormat: 'json' }),
];
const NONE = account(7, { windowPolicy: 'none' });
const NO_TOKEN: SimulatorAccount = { appId: 'wxfollow0000008', secret: 'secret-8' };

let webhook: FakeWebhook;
let sim: Simulator;
let simUrl: string;
let clock: number;

beforeAll(async () => {
  webhook = await startFakeWebhook();
  sim = createSimulator({
    accounts: [...MODES, NONE, NO_TOKEN],
    logger: silentLogger,
    now: () => clock,
    webhookBaseUrl: `${webhook.url}/`,
  });
  simUrl = (await sim.listen(0)).url;
});
afterAll(async () => {
  await sim.close();
  await webhook.close();
});
beforeEach(() => {
  clock = START;
  webhook.reset();
});

/** Checks a received push's signatures and encryption for its account; returns its plaintext fields. */
function readPush(a: SimulatorAccount, push: ReceivedPush, openid: string): Record<string, string> {
  const url = new URL(push.url, 'http://webhook');
  const q = (name: string) => url.searchParams.get(name) ?? undefined;
  const [timestamp, nonce] = [q('timestamp')!, q('nonce')!];
  expect(url.pathname).toBe(`/wechat/${a.appId}`);
  expect(q('openid')).toBe(openid);
  expect(signatureMatches(q('signature'), [TOKEN, timestamp, nonce])).toBe(true);
  const format = a.pushFormat ?? 'xml';
  expect(push.contentType).toMatch(format === 'xml' ? /^text\/xml/ : /^application\/json/);
  const outer = parsePushBody(push.body, format);
  if ((a.pushMode ?? 'plaintext') === 'plaintext') {
    expect([q('encrypt_type'), q('msg_signature'), outer.Encrypt]).toEqual([undefined, undefined, undefined]);
    return outer;
  }
  expect(q('encrypt_type')).toBe('aes');
  const encrypt = extractEncrypt(push.body, format);
  expect(signatureMatches(q('msg_signature'), [TOKEN, timestamp, nonce, encrypt])).toBe(true);
  const crypto = createPushCrypto({ appId: a.appId, token: TOKEN, encodingAESKey: KEY });
  const inner = parsePushBody(crypto.decrypt(encrypt).message, format);
  const plainPart = Object.fromEntries(Object.entries(outer).filter(([k]) => k !== 'Encrypt'));
  expect(plainPart).toEqual(a.pushMode === 'safe' ? { ToUserName: inner.ToUserName } : inner);
  return inner;
}

/** One send to the simulator's API as the service would make it; resolves with the errcode. */
async function send(channel: 'custom' | 'template', appId: string, openid: string): Promise<number> {
  const post = async (path: string, body: unknown) =>
    (await (await fetch(`${simUrl}${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as {
      errcode?: number;
      access_token?: string;
    };
  const creds = { grant_type: 'client_credential', appid: appId, secret: `secret-${appId.slice(-1)}` };
  const token = (await post('/cgi-bin/stable_token', creds)).access_token!;
  const body =
    channel === 'custom'
      ? { touser: openid, msgtype: 'text', text: { content: 'hi' } }
      : { touser: openid, template_id: 'TPL_COUPON', data: { thing1: { value: 'v' } } };
  return (await post(`/cgi-bin/message/${channel}/send?access_token=${token}`, body)).errcode!;
}
const customSend = (appId: string, openid: string) => send('custom', appId, openid);
const templateSend = (appId: string, openid: string) => send('template', appId, openid);

const sends = async (appId: string, openid: string, n: number) => {
  const codes: number[] = [];
  for (let i = 0; i < n; i += 1) codes.push(await customSend(appId, openid));
  return codes;
};

describe('simulator as a follower: pushes to the webhook', () => {
  it.each(MODES.map((a) => [`${a.pushMode ?? 'plaintext'} ${a.pushFormat ?? 'xml'}`, a] as const))(
    'signs (and encrypts) a follow from a QR code correctly in %s',
    async (_name, a) => {
      const outcome = await sim.push('follow', 'oQr1', { appId: a.appId, scene: 'spring' });
      expect(outcome.pushes).toEqual([{ status: 200, body: 'success', ms: expect.any(Number) }]);
      expect(webhook.received).toHaveLength(1);
      const push = toPush(readPush(a, webhook.received[0], 'oQr1'));
      expect(push).toMatchObject({
        openid: 'oQr1',
        createTime: Math.floor(START / 1000),
        msgType: 'event',
        event: 'subscribe',
        eventKey: 'qrscene_spring',
        msgId: null,
      });
      expect(push.toUserName).toMatch(/^gh_[0-9a-f]{12}$/);
      expect(push.ticket).toMatch(/^gQ/);
      expect(outcome.fields).toEqual(push.fields);
    },
  );

  it.each([
    ['unfollow', {}, { event: 'unsubscribe', eventKey: null }],
    ['scan', { scene: 42 }, { event: 'SCAN', eventKey: '42' }],
    ['click', { key: 'MENU_COURSES' }, { event: 'CLICK', eventKey: 'MENU_COURSES', ticket: null }],
    ['message', { content: '课程 ]]> <b>' }, { msgType: 'text', event: null, content: '课程 ]]> <b>' }],
  ] as const)('pushes %s with the fields WeChat sends, in XML and JSON', async (action, extra, expected) => {
    for (const a of [PLAIN_XML, MODES[3]]) {
      webhook.reset();
      await sim.push(action, 'oAct1', { appId: a.appId, ...extra });
      expect(toPush(readPush(a, webhook.received[0], 'oAct1'))).toMatchObject({
        openid: 'oAct1',
        ...expected,
      });
    }
  });

  it('gives each text message a distinct 64-bit MsgId beyond 2^53, written as a bare number', async () => {
    const first = await sim.push('message', 'oMsg1', { appId: MODES[1].appId, content: 'a' });
    const second = await sim.push('message', 'oMsg1', { appId: MODES[1].appId, content: 'b' });
    expect(BigInt(first.fields.MsgId)).toBeGreaterThan(2n ** 53n);
    expect(second.fields.MsgId).not.toBe(first.fields.MsgId);
    expect(webhook.received[0].body).toContain(`"MsgId":${first.fields.MsgId}}`);
  });

  it.each([false, true])('repeat delivers the identical push (concurrent: %s)', async (concurrent) => {
    const outcome = await sim.push('message', 'oRetry', {
      appId: MODES[2].appId,
      content: 'x',
      repeat: 3,
      concurrent,
    });
    expect(outcome.pushes.map((p) => [p.status, p.body])).toEqual(Array(3).fill([200, 'success']));
    expect(webhook.received).toHaveLength(3);
    expect(new Set(webhook.received.map((r) => `${r.url} ${r.body}`)).size).toBe(1);
    expect(readPush(MODES[2], webhook.received[2], 'oRetry').MsgId).toBe(outcome.fields.MsgId);
  });

  it('answers what the webhook answered, and status 0 with the error when nobody listens', async () => {
    webhook.answer = { status: 500, body: 'boom' };
    expect((await sim.push('click', 'o1', { appId: PLAIN_XML.appId, key: 'K' })).pushes).toEqual([
      { status: 500, body: 'boom', ms: expect.any(Number) },
    ]);
    const deaf = createSimulator({
      accounts: [PLAIN_XML],
      logger: silentLogger,
      webhookBaseUrl: `http://127.0.0.1:${await closedPort()}`,
    });
    const [delivery, ...retries] = (await deaf.push('click', 'o1', { appId: PLAIN_XML.appId, key: 'K' }))
      .pushes;
    expect(delivery).toMatchObject({ status: 0, body: '', error: expect.stringMatching(/ECONNREFUSED/) });
    // Unanswered, WeChat sends it again: three attempts in all (an answer, even a 500, ends it: above).
    expect(retries.map((r) => r.status)).toEqual([0, 0]);
    await deaf.close();
  });

  it('serves the push routes over HTTP, with 400 for bad requests and 404 for unknown actions', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${simUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const ok = await post('/__sim/users/oHttp/scan', { appId: PLAIN_XML.appId, scene: 'door' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      fields: { Event: 'SCAN', EventKey: 'door' },
      pushes: [{ status: 200 }],
    });
    expect(webhook.received).toHaveLength(1);
    expect((await post('/__sim/users/oHttp/scan', { appId: PLAIN_XML.appId })).status).toBe(400);
    expect((await post('/__sim/users/oHttp/click', { appId: 'wxunknown', key: 'K' })).status).toBe(400);
    expect((await post('/__sim/users/oHttp/follow', { appId: NO_TOKEN.appId })).status).toBe(400);
    expect((await post('/__sim/users/oHttp/dance', { appId: PLAIN_XML.appId })).status).toBe(404);
    expect(webhook.received).toHaveLength(1);
    const view = await fetch(`${simUrl}/__sim/users/oHttp?appId=${PLAIN_XML.appId}`);
    expect(await view.json()).toMatchObject({
      subscribed: true,
      lastInteraction: { kind: 'scan', at: START },
    });
  });

  it('refuses a bad in-process push with the problems listed', async () => {
    await expect(sim.push('message', 'o 1', { appId: PLAIN_XML.appId })).rejects.toBeInstanceOf(
      PushRequestError,
    );
    expect(webhook.received).toHaveLength(0);
  });
});

describe('simulator as a follower: contact-window enforcement', () => {
  const APP = PLAIN_XML.appId;

  it('allows 3 custom sends after a follow, answers 45047 to the 4th and 45015 once the minute is over', async () => {
    await sim.push('follow', 'oW1', { appId: APP });
    expect(await sends(APP, 'oW1', 4)).toEqual([0, 0, 0, 45047]);
    clock += 60_000;
    expect(await customSend(APP, 'oW1')).toBe(45015);
    expect(sim.messages({ openid: 'oW1' })).toHaveLength(3);
  });

  it('allows 5 sends for 48 h after a user message under the official policy', async () => {
    await sim.push('message', 'oW2', { appId: APP, content: 'hi' });
    clock += 47 * 3600_000;
    expect(await sends(APP, 'oW2', 6)).toEqual([0, 0, 0, 0, 0, 45047]);
    expect(sim.follower(APP, 'oW2')).toMatchObject({ used: 5, window: { remaining: 0, open: false } });
  });

  it('resets the allowance on a new interaction instead of adding to it, and the latest one sets the window', async () => {
    await sim.push('message', 'oW3', { appId: APP, content: 'hi' });
    expect(await sends(APP, 'oW3', 2)).toEqual([0, 0]);
    await sim.push('click', 'oW3', { appId: APP, key: 'K' });
    expect(await sends(APP, 'oW3', 4)).toEqual([0, 0, 0, 45047]);
    await sim.push('message', 'oW3', { appId: APP, content: 'again' });
    await sim.push('scan', 'oW3', { appId: APP, scene: 's' });
    clock += 60_000;
    // The message's 48 h would still be open; the scan after it is what counts.
    expect(await customSend(APP, 'oW3')).toBe(45015);
  });

  it('after an unfollow answers 45015 to custom sends and 43004 to template sends', async () => {
    await sim.push('message', 'oW4', { appId: APP, content: 'hi' });
    await sim.push('unfollow', 'oW4', { appId: APP });
    expect(await customSend(APP, 'oW4')).toBe(45015);
    expect(await templateSend(APP, 'oW4')).toBe(43004);
    expect(sim.follower(APP, 'oW4')).toMatchObject({ subscribed: false });
    await sim.push('follow', 'oW4', { appId: APP });
    expect([await customSend(APP, 'oW4'), await templateSend(APP, 'oW4')]).toEqual([0, 0]);
  });

  it('answers 45015 for a follower it has never seen an interaction from, but sends templates to them', async () => {
    expect(await customSend(APP, 'oNeverSeen')).toBe(45015);
    expect(await templateSend(APP, 'oNeverSeen')).toBe(0);
    expect(sim.follower(APP, 'oNeverSeen')).toMatchObject({ known: false, subscribed: true, window: null });
  });

  it('does not enforce windows for an account with the none policy', async () => {
    expect(await sends(NONE.appId, 'oFree', 25)).toEqual(Array(25).fill(0));
  });

  it('lets everything through when created with enforceContactWindow: false', async () => {
    const open = createSimulator({
      accounts: [PLAIN_XML],
      logger: silentLogger,
      enforceContactWindow: false,
      webhookBaseUrl: `http://127.0.0.1:${await closedPort()}`,
    });
    const url = (await open.listen(0)).url;
    const previous = simUrl;
    simUrl = url;
    try {
      await open.push('unfollow', 'oGone', { appId: APP });
      expect(await sends(APP, 'oNeverSeen', 10)).toEqual(Array(10).fill(0));
      expect([await customSend(APP, 'oGone'), await templateSend(APP, 'oGone')]).toEqual([0, 0]);
    } finally {
      simUrl = previous;
      await open.close();
    }
  });
});
