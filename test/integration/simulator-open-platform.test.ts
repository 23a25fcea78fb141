import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import { createSimCipher, signPush } from '../../src/simulator/sim-crypto';
import { anEncodingAESKey } from '../helpers/builders';
import { waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';

const COMPONENT = {
  componentAppId: 'wxsimcomponent0001',
  secret: 'sim-component-secret',
  token: 'simcomponenttoken',
  encodingAESKey: anEncodingAESKey(),
};
/** What the authorization-event URL received: the query and body of each push. */
const received: { path: string; query: URLSearchParams; body: string }[] = [];
let webhook: Server;
let sim: Simulator;
let base: string;
/** The simulator's clock runs this far ahead of the real one. */
let offsetMs = 0;

beforeAll(async () => {
  webhook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      received.push({ path: url.pathname, query: url.searchParams, body });
      res.end('success');
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  sim = createSimulator({
    accounts: [],
    logger: silentLogger,
    webhookBaseUrl: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`,
    component: COMPONENT,
    ticketIntervalMs: 200,
    // About the platform's tokens, not the contact window its followers open.
    enforceContactWindow: false,
    now: () => Date.now() + offsetMs,
  });
  base = (await sim.listen(0)).url;
});
afterAll(async () => {
  await sim.close();
  await new Promise((r) => webhook.close(r));
});

/** Checks a push as the Open Platform signs it and opens it with the component's key. */
function open(push: (typeof received)[number]): string {
  const encrypt = /<Encrypt><!\[CDATA\[(.*?)\]\]><\/Encrypt>/.exec(push.body)![1];
  const q = push.query;
  expect(q.get('encrypt_type')).toBe('aes');
  expect(q.get('msg_signature')).toBe(
    signPush([COMPONENT.token, q.get('timestamp')!, q.get('nonce')!, encrypt]),
  );
  expect(push.body).toContain(`<AppId><![CDATA[${COMPONENT.componentAppId}]]></AppId>`);
  const opened = createSimCipher(COMPONENT.componentAppId, COMPONENT.encodingAESKey).decrypt(encrypt);
  expect(opened.appId).toBe(COMPONENT.componentAppId);
  return opened.message;
}

/** The opened message of the last push of this InfoType. */
const lastOf = (infoType: string): string =>
  received.map(open).findLast((m) => m.includes(`<InfoType><![CDATA[${infoType}]]></InfoType>`))!;

describe('the simulated Open Platform', () => {
  it('pushes a signed, encrypted component_verify_ticket to /wechat/component on its timer', async () => {
    expect(await waitFor(() => received.length >= 2, 3000)).toBe(true);
    expect(received[0].path).toBe('/wechat/component');
    const message = open(received[0]);
    expect(message).toMatch(/<InfoType><!\[CDATA\[component_verify_ticket\]\]><\/InfoType>/);
    expect(message).toMatch(/<ComponentVerifyTicket><!\[CDATA\[ticket@@@/);
  });

  it('pushes an account’s authorization events on demand, with a code only when authorizing', async () => {
    const post = (body: unknown) =>
      fetch(`${base}/__sim/component/authorizations`, { method: 'POST', body: JSON.stringify(body) });
    const res = await post({ appId: 'wxauthorized0001', action: 'authorize' });
    expect(await res.json()).toMatchObject({ infoType: 'authorized', status: 200, body: 'success' });
    const authorized = lastOf('authorized');
    expect(authorized).toMatch(/<AuthorizerAppid><!\[CDATA\[wxauthorized0001\]\]>/);
    expect(authorized).toMatch(/<AuthorizationCode><!\[CDATA\[queryauthcode@@@/);

    await post({ appId: 'wxauthorized0001', action: 'unauthorize' });
    const revoked = lastOf('unauthorized');
    expect(revoked).toMatch(/<AuthorizerAppid><!\[CDATA\[wxauthorized0001\]\]>/);
    expect(revoked).not.toContain('AuthorizationCode');
  });

  it('refuses an unknown action or a bad app id with 400, and lists what it pushed', async () => {
    const post = (body: unknown) =>
      fetch(`${base}/__sim/component/authorizations`, { method: 'POST', body: JSON.stringify(body) });
    expect((await post({ appId: 'wxauthorized0001', action: 'revoke' })).status).toBe(400);
    expect((await post({ appId: 'no', action: 'authorize' })).status).toBe(400);
    const list = (await (await fetch(`${base}/__sim/component/pushes`)).json()) as {
      pushes: { infoType: string }[];
    };
    expect(list.pushes.map((p) => p.infoType)).toEqual(
      expect.arrayContaining(['component_verify_ticket', 'authorized', 'unauthorized']),
    );
  });

  it('loses its pushes on demand (the URL unreachable), recording them with status 0', async () => {
    const control = (body: unknown) =>
      fetch(`${base}/__sim/component/push-loss`, { method: 'POST', body: JSON.stringify(body) });
    expect(await (await control({ lost: true })).json()).toEqual({ lost: true });
    try {
      const seen = received.length;
      const lost = await sim.openPlatform!.authorize('wxauthorized0003', 'authorize');
      expect(lost).toMatchObject({ infoType: 'authorized', status: 0 });
      expect(received.slice(seen).map(open).join()).not.toContain('wxauthorized0003');
    } finally {
      await control({ lost: false });
    }
    expect((await sim.openPlatform!.authorize('wxauthorized0003', 'update')).status).toBe(200);
  });

  it('refuses bad push-loss and funcIds controls with 400, pushing nothing', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${base}/__sim/component/${path}`, { method: 'POST', body: JSON.stringify(body) });
    const pushed = (await (await fetch(`${base}/__sim/component/pushes`)).json()) as { pushes: unknown[] };
    const answers = [
      await post('push-loss', { lost: 'yes' }),
      await post('authorizations', { appId: 'wxauthorized0003', action: 'update', funcIds: ['1'] }),
      await post('authorizations', { appId: 'wxauthorized0003', action: 'unauthorize', funcIds: [1] }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400]);
    const after = (await (await fetch(`${base}/__sim/component/pushes`)).json()) as {
      pushes: { infoType: string }[];
    };
    expect(
      after.pushes.slice(pushed.pushes.length).filter((p) => p.infoType !== 'component_verify_ticket'),
    ).toEqual([]);
  });
});

describe('the simulated Open Platform’s token APIs', () => {
  const api = async (path: string, body: unknown, token?: string) => {
    const query = token === undefined ? '' : `?component_access_token=${token}`;
    const res = await fetch(`${base}/cgi-bin/component/${path}${query}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const latestTicket = () =>
    /<ComponentVerifyTicket><!\[CDATA\[(.*?)\]\]>/.exec(lastOf('component_verify_ticket'))![1];
  const componentBody = (overrides: Record<string, string> = {}) => ({
    component_appid: COMPONENT.componentAppId,
    component_appsecret: COMPONENT.secret,
    component_verify_ticket: latestTicket(),
    ...overrides,
  });
  const send = async (token: string) =>
    (await (
      await fetch(`${base}/cgi-bin/message/custom/send?access_token=${token}`, {
        method: 'POST',
        body: JSON.stringify({ touser: 'o-platform', msgtype: 'text', text: { content: 'hi' } }),
      })
    ).json()) as { errcode: number };
  afterEach(() => (offsetMs = 0));

  it('issues a component token for the latest ticket, and answers WeChat’s errcodes otherwise', async () => {
    expect(await api('api_component_token', componentBody())).toMatchObject({ expires_in: 7200 });
    expect(await api('api_component_token', componentBody({ component_appsecret: 'wrong' }))).toMatchObject({
      errcode: 40125,
    });
    expect(await api('api_component_token', componentBody({ component_appid: 'wxnotours' }))).toMatchObject({
      errcode: 61011,
    });
    expect(
      await api('api_component_token', componentBody({ component_verify_ticket: 'ticket@@@forged' })),
    ).toMatchObject({ errcode: 61006 });
    const ticket = latestTicket();
    sim.openPlatform!.close(); // no newer ticket from the timer while the clock jumps
    offsetMs = 13 * 3_600_000;
    expect(
      await api('api_component_token', componentBody({ component_verify_ticket: ticket })),
    ).toMatchObject({ errcode: 61005 });
  });

  it('issues authorizer tokens good for sends; a refresh leaves the old one 5 minutes; a revoked account gets 61003', async () => {
    const component = (await api('api_component_token', componentBody())).component_access_token as string;
    await sim.openPlatform!.authorize('wxauthorized0002', 'authorize');
    const refresh = {
      component_appid: COMPONENT.componentAppId,
      authorizer_appid: 'wxauthorized0002',
      authorizer_refresh_token: sim.openPlatform!.refreshTokenOf('wxauthorized0002')!,
    };
    const first = await api('api_authorizer_token', refresh, component);
    expect(first).toMatchObject({
      expires_in: 7200,
      authorizer_refresh_token: refresh.authorizer_refresh_token,
    });
    const second = await api('api_authorizer_token', refresh, component);
    expect(await send(first.authorizer_access_token as string)).toMatchObject({ errcode: 0 });

    offsetMs = 301_000;
    expect(await send(first.authorizer_access_token as string)).toMatchObject({ errcode: 42001 });
    expect(await send(second.authorizer_access_token as string)).toMatchObject({ errcode: 0 });
    offsetMs = 0;

    expect(
      await api('api_authorizer_token', { ...refresh, authorizer_refresh_token: 'x' }, component),
    ).toMatchObject({ errcode: 61023 });
    expect(await api('api_authorizer_token', refresh, 'not-a-token')).toMatchObject({ errcode: 40001 });
    await sim.openPlatform!.authorize('wxauthorized0002', 'unauthorize');
    expect(await api('api_authorizer_token', refresh, component)).toMatchObject({ errcode: 61003 });
  });

  it('exchanges an updated authorization’s code for the permission sets granted, once, and lists the calls', async () => {
    const component = (await api('api_component_token', componentBody())).component_access_token as string;
    await sim.openPlatform!.authorize('wxauthorized0004', 'authorize');
    await fetch(`${base}/__sim/component/authorizations`, {
      method: 'POST',
      body: JSON.stringify({ appId: 'wxauthorized0004', action: 'update', funcIds: [1, 89] }),
    });
    const code = /<AuthorizationCode><!\[CDATA\[(.*?)\]\]>/.exec(lastOf('updateauthorized'))![1];
    const query = { component_appid: COMPONENT.componentAppId, authorization_code: code };

    expect(await api('api_query_auth', query, component)).toMatchObject({
      authorization_info: {
        authorizer_appid: 'wxauthorized0004',
        func_info: [{ funcscope_category: { id: 1 } }, { funcscope_category: { id: 89 } }],
      },
    });
    expect(await api('api_query_auth', query, component)).toMatchObject({ errcode: 61009 });
    const { redemptions } = (await (await fetch(`${base}/__sim/component/redemptions`)).json()) as {
      redemptions: { appId: string | null; errcode: number }[];
    };
    expect(redemptions.filter((r) => r.appId === 'wxauthorized0004').map((r) => r.errcode)).toEqual([
      0, 61009,
    ]);
  });
});
