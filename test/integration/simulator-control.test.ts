import { createSimulator, type Simulator, type SimulatorStats } from '../../src/simulator/create-simulator';
import type { ReceivedMessage } from '../../src/simulator/store';
import { silentLogger } from '../helpers/logger';

const ACCOUNT = { appId: 'wxctltest0001', secret: 'secret-one' };
const OTHER = { appId: 'wxctltest0002', secret: 'secret-two' };

let sim: Simulator;
let base: string;
const tokens = new Map<string, string>();

async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal) {
  const res = await fetch(`${base}${path}`, {
    method,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
  return { status: res.status, json: (await res.json()) as T };
}

async function send(openid: string, account = ACCOUNT, signal?: AbortSignal) {
  const token = tokens.get(account.appId)!;
  const body = { touser: openid, msgtype: 'text', text: { content: `hi ${openid}` } };
  const res = await call<{ errcode: number; errmsg: string }>(
    'POST',
    `/cgi-bin/message/custom/send?access_token=${token}`,
    body,
    signal,
  );
  return res.json;
}

const setFaults = (spec: unknown) => call<{ faults: unknown }>('POST', '/__sim/faults', spec);
const listed = async (query = '') =>
  (await call<{ messages: ReceivedMessage[]; hasMore: boolean }>('GET', `/__sim/messages${query}`)).json;
const stats = async () => (await call<SimulatorStats>('GET', '/__sim/stats')).json;

beforeAll(async () => {
  sim = createSimulator({ accounts: [ACCOUNT, OTHER], logger: silentLogger, enforceContactWindow: false });
  base = (await sim.listen(0)).url;
  for (const a of [ACCOUNT, OTHER]) {
    const body = { grant_type: 'client_credential', appid: a.appId, secret: a.secret };
    tokens.set(
      a.appId,
      (await call<{ access_token: string }>('POST', '/cgi-bin/stable_token', body)).json.access_token,
    );
  }
});
afterAll(() => sim.close());
beforeEach(async () => {
  await call('DELETE', '/__sim/faults');
  await call('DELETE', '/__sim/messages');
});

describe('simulator faults', () => {
  it('errorRate 1 answers every send with -1 and records nothing', async () => {
    const before = await stats();
    expect((await setFaults({ errorRate: 1 })).status).toBe(200);
    expect(await send('o1')).toEqual({ errcode: -1, errmsg: 'system error' });
    expect(await send('o2')).toEqual({ errcode: -1, errmsg: 'system error' });
    expect((await listed()).messages).toEqual([]);
    expect((await stats()).errorsInjected - before.errorsInjected).toBe(2);
  });

  it('forceErrcode with count applies to the next N sends only', async () => {
    await setFaults({ forceErrcode: 45015, count: 2 });
    const answers = [await send('o1'), await send('o2'), await send('o3')];
    expect(answers.map((a) => a.errcode)).toEqual([45015, 45015, 0]);
    expect((await listed()).messages.map((m) => m.openid)).toEqual(['o3']);
    expect((await call('GET', '/__sim/faults')).json).toEqual({ faults: null });
  });

  it('errorRate with an errcode injects that errcode', async () => {
    await setFaults({ errorRate: 1, errcode: 45011, count: 1 });
    expect((await send('o1')).errcode).toBe(45011);
  });

  it('latencyMs delays the answer', async () => {
    await setFaults({ latencyMs: 150 });
    const started = Date.now();
    expect((await send('o1')).errcode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('hangMs answers nothing, so the client times out, and records nothing', async () => {
    await setFaults({ hangMs: 5000, count: 1 });
    await expect(send('o1', ACCOUNT, AbortSignal.timeout(200))).rejects.toThrow();
    expect((await send('o2')).errcode).toBe(0);
    expect((await listed()).messages.map((m) => m.openid)).toEqual(['o2']);
  });

  it('hangMs drops the connection without an answer when the client waits longer', async () => {
    await setFaults({ hangMs: 100, count: 1 });
    const started = Date.now();
    await expect(send('o1')).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('DELETE /__sim/faults restores normal answers', async () => {
    await setFaults({ errorRate: 1 });
    expect((await call('DELETE', '/__sim/faults')).json).toEqual({ faults: null });
    expect((await send('o1')).errcode).toBe(0);
  });

  it('answers 400 with every problem for a bad fault spec, and keeps the previous one', async () => {
    await setFaults({ forceErrcode: 45047 });
    const bad = await call<{ error: { code: string; details: string[] } }>('POST', '/__sim/faults', {
      errorRate: 2,
      latencyMs: -1,
      surprise: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('bad_request');
    expect(bad.json.error.details).toHaveLength(3);
    expect((await call('POST', '/__sim/faults', '{')).status).toBe(400);
    expect((await send('o1')).errcode).toBe(45047);
  });
});

describe('simulator /__sim routes', () => {
  it('lists messages filtered by appId, openid and since, with a limit', async () => {
    await send('o1');
    await send('o2');
    await send('o1', OTHER);
    await send('o1');
    const all = await listed();
    expect(all.messages.map((m) => [m.appId, m.openid])).toEqual([
      [ACCOUNT.appId, 'o1'],
      [ACCOUNT.appId, 'o2'],
      [OTHER.appId, 'o1'],
      [ACCOUNT.appId, 'o1'],
    ]);
    expect(all.messages[0].body).toEqual({ touser: 'o1', msgtype: 'text', text: { content: 'hi o1' } });
    const seqs = all.messages.map((m) => m.seq);
    expect((await listed(`?appId=${ACCOUNT.appId}&openid=o1`)).messages.map((m) => m.seq)).toEqual([
      seqs[0],
      seqs[3],
    ]);
    expect((await listed(`?since=${seqs[1]}`)).messages.map((m) => m.seq)).toEqual([seqs[2], seqs[3]]);
    expect(await listed('?limit=1')).toEqual({ messages: [all.messages[0]], hasMore: true });
  });

  it('DELETE /__sim/messages forgets them while seq keeps increasing', async () => {
    await send('o1');
    const [before] = (await listed()).messages;
    expect((await call('DELETE', '/__sim/messages')).json).toEqual({ cleared: 1 });
    expect((await listed()).messages).toEqual([]);
    await send('o1');
    expect((await listed()).messages[0].seq).toBe(before.seq + 1);
  });

  it('counts received sends by channel and msgtype, and rejections by errcode', async () => {
    const before = await stats();
    await send('o1');
    await call('POST', '/cgi-bin/message/custom/send?access_token=nope', { touser: 'o', msgtype: 'text' });
    const after = await stats();
    expect(after.received - before.received).toBe(1);
    expect(after.byChannel.custom - before.byChannel.custom).toBe(1);
    expect(after.byMsgtype.text - (before.byMsgtype.text ?? 0)).toBe(1);
    expect(after.rejectedByErrcode['40001'] - (before.rejectedByErrcode['40001'] ?? 0)).toBe(1);
    expect(after.stored).toBe(1);
    expect(after.tokens.requests.stable).toBe(2);
  });

  it('answers 400 for bad message filters and unknown accounts, 404 for unknown routes', async () => {
    expect((await call('GET', '/__sim/messages?since=-1')).status).toBe(400);
    expect((await call('GET', '/__sim/messages?limit=0')).status).toBe(400);
    expect((await call('POST', '/__sim/tokens/invalidate', { appId: 'wxnobody' })).status).toBe(400);
    expect((await call('POST', '/__sim/tokens/invalidate', {})).status).toBe(400);
    expect((await call('GET', '/__sim/nothing')).status).toBe(404);
  });
});

describe('simulator account registration', () => {
  const token = (appid: string, secret: string) =>
    call<{ access_token?: string; errcode?: number }>('POST', '/cgi-bin/stable_token', {
      grant_type: 'client_credential',
      appid,
      secret,
    });

  it('POST /__sim/accounts makes an account known: it gets tokens, and a second registration replaces its secret', async () => {
    const appId = 'wxctlregistered1';
    expect((await token(appId, 'first')).json.errcode).toBe(40013);

    const registered = await call('POST', '/__sim/accounts', { appId, secret: 'first', token: 'pushtoken1' });
    expect(registered).toEqual({ status: 200, json: { registered: appId } });
    expect((await token(appId, 'first')).json.access_token).toEqual(expect.any(String));

    await call('POST', '/__sim/accounts', { appId, secret: 'second' });
    expect((await token(appId, 'first')).json.errcode).toBe(40125);
    expect((await token(appId, 'second')).json.access_token).toEqual(expect.any(String));
  });

  it('refuses a registration without a secret, or safe mode without a key, naming the field', async () => {
    const noSecret = await call<{ error: { details: string[] } }>('POST', '/__sim/accounts', {
      appId: 'wxctlbad',
    });
    const noKey = await call<{ error: { details: string[] } }>('POST', '/__sim/accounts', {
      appId: 'wxctlbad',
      secret: 's',
      pushMode: 'safe',
      pushFormat: 'yaml',
    });
    expect(noSecret.status).toBe(400);
    expect(noSecret.json.error.details).toEqual([expect.stringMatching(/^secret:/)]);
    expect(noKey.json.error.details).toEqual([
      expect.stringMatching(/^encodingAESKey:/),
      expect.stringMatching(/^pushFormat:/),
    ]);
    expect((await token('wxctlbad', 's')).json.errcode).toBe(40013);
  });
});

describe('simulator template libraries', () => {
  const templateSend = async (account: typeof ACCOUNT, templateId: string) =>
    (
      await call<{ errcode: number }>(
        'POST',
        `/cgi-bin/message/template/send?access_token=${tokens.get(account.appId)!}`,
        { touser: 'oTpl', template_id: templateId, data: { thing1: { value: 'hi' } } },
      )
    ).json.errcode;

  it('an account nobody registered templates for holds the example templates', async () => {
    const listed = await call<{ templates: { template_id: string }[] }>(
      'GET',
      `/__sim/templates?appId=${OTHER.appId}`,
    );
    expect(listed.json.templates.map((t) => t.template_id)).toEqual([
      'TPL_COURSE_REMINDER',
      'TPL_COUPON',
      'TPL_ORDER_SHIPPED',
    ]);
    expect(await templateSend(OTHER, 'TPL_COUPON')).toBe(0);
  });

  it('POST /__sim/templates replaces one account’s library: its old templates answer 40037', async () => {
    const answer = await call('POST', '/__sim/templates', {
      appId: ACCOUNT.appId,
      templates: [{ template_id: 'MY_TPL', title: '提醒', content: '内容：{{thing1.DATA}}' }],
    });
    expect(answer).toEqual({ status: 200, json: { appId: ACCOUNT.appId, templates: 1 } });
    expect(await templateSend(ACCOUNT, 'MY_TPL')).toBe(0);
    expect(await templateSend(ACCOUNT, 'TPL_COUPON')).toBe(40037);
    expect(await templateSend(OTHER, 'TPL_COUPON')).toBe(0);
  });

  it.each([
    ['no appId', { templates: [] }],
    [
      'a template without content fields',
      { appId: 'a', templates: [{ template_id: 't', title: 'x', content: 'hi' }] },
    ],
    [
      'a template_id twice',
      {
        appId: 'a',
        templates: [
          { template_id: 't', title: 'x', content: '{{a.DATA}}' },
          { template_id: 't', title: 'y', content: '{{b.DATA}}' },
        ],
      },
    ],
  ])('POST /__sim/templates with %s answers 400', async (_what, body) => {
    expect((await call('POST', '/__sim/templates', body)).status).toBe(400);
  });
});
