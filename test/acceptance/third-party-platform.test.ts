import { leakEvidence } from './support/evidence';
import { aTextMessage } from './support/builders';
import { untilFinal } from './support/expectations';
import { call } from './support/http';
import { createSimulatorClient } from './support/simulator-client';
import { waitFor } from './support/wait-for';
import { startWorld, type World } from './support/world';

// docs/accounts-and-platform.md "Accounts through the third-party platform": the simulated Open Platform pushes its ticket on a
// timer and on demand, and an account's authorization events, to the authorization-event URL; the
// service answers each `success`, refuses a forged push, and keeps the platform's secrets out of clear.
const PLATFORM = {
  WECHAT_COMPONENT_APP_ID: 'wxcomponentaccept01',
  WECHAT_COMPONENT_SECRET: 'acceptance-component-secret',
  WECHAT_COMPONENT_TOKEN: 'acceptancecomponenttoken',
  WECHAT_COMPONENT_ENCODING_AES_KEY: 'AcceptanceComponentAESKey0123456789abcdefgh',
};
let world: World;

interface Delivery {
  infoType: string;
  authorizerAppId: string | null;
  status: number;
  body: string;
}

beforeAll(async () => {
  world = await startWorld({
    name: 'platform',
    env: { ...PLATFORM, LOG_LEVEL: 'debug' },
    simEnv: { ...PLATFORM, SIM_TICKET_INTERVAL_MS: '1000' },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const redemptions = async () =>
  (
    await call<{ redemptions: { appId: string | null; errcode: number }[] }>(
      `${world.sim.url}/__sim/component/redemptions`,
    )
  ).body.redemptions;

/** The callback URL (with its state) of a freshly made authorization link, as WeChat would redirect to it. */
const startedCallback = async (): Promise<string> => {
  const started = await world.api('/v1/platform/authorizations', {
    json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
  });
  expect(started.status).toBe(201);
  return new URL(started.body.authorizationUrl as string).searchParams.get('redirect_uri')!;
};

/** `callback` with `auth_code` set, as WeChat appends it. */
const withCode = (callback: string, authCode: string): string => {
  const url = new URL(callback);
  url.searchParams.set('auth_code', authCode);
  return url.toString();
};

const simPushes = async () =>
  (await call<{ pushes: Delivery[] }>(`${world.sim.url}/__sim/component/pushes`)).body.pushes;

describe('Accounts through the third-party platform', () => {
  it('the Open Platform’s ticket pushes, on its timer and on demand, are answered `success`', async () => {
    // The first may have found the service not started yet, as WeChat can: the next comes 1 s later.
    const timed = await waitFor(
      async () =>
        (await simPushes()).find((p) => p.infoType === 'component_verify_ticket' && p.status === 200),
      'the simulator to push a ticket on its 1 s timer, answered',
    );
    expect(timed.body).toBe('success');

    const now = await call<Delivery>(`${world.sim.url}/__sim/component/ticket`, { method: 'POST' });
    expect(now.body).toMatchObject({ infoType: 'component_verify_ticket', status: 200, body: 'success' });
  });

  it('an account authorizing, updating and revoking the platform: each event is answered `success`', async () => {
    for (const action of ['authorize', 'update', 'unauthorize']) {
      const res = await call<Delivery>(`${world.sim.url}/__sim/component/authorizations`, {
        json: { appId: 'wxauthorizedaccount1', action },
      });
      expect(res.body).toMatchObject({
        authorizerAppId: 'wxauthorizedaccount1',
        status: 200,
        body: 'success',
      });
    }
    expect((await simPushes()).map((p) => p.infoType)).toEqual(
      expect.arrayContaining(['authorized', 'updateauthorized', 'unauthorized']),
    );
  });

  it('an account connected through the simulated Open Platform receives its follower’s push and sends in its window; unauthorizing it cancels what is pending', async () => {
    const appId = 'wxconnectedaccount1';
    const started = await world.api('/v1/platform/authorizations', {
      json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
    });
    expect(started.status).toBe(201);
    const page = new URL(started.body.authorizationUrl as string);
    page.searchParams.set('sim_appid', appId); // the account's admin scans and consents
    const consented = await fetch(page, { redirect: 'manual' });
    expect(consented.status).toBe(302);
    const callback = await call(consented.headers.get('location')!);
    expect(callback.body).toEqual({ appId, outcome: 'created', permissions: [1, 7] });
    // The follower follows: WeChat pushes it to the platform's URL for this account, and the contact
    // window it opens is what lets the message through, on both sides.
    const sim = createSimulatorClient(world.sim.url, appId);
    const follow = await sim.follow('o-platform');
    expect(follow.pushes.map((p) => `${p.status} ${p.body}`)).toEqual(['200 success']);
    // The webhook answers once the push is stored; it is processed (the window recorded) just after.
    await waitFor(
      async () => (await world.api.follower(appId, 'o-platform')).follower !== null,
      'the follow to be processed',
    );

    const now = await world.api.schedule({
      appId,
      openid: 'o-platform',
      message: aTextMessage('via the platform'),
    });
    expect((await untilFinal(world.api, now.id)).status).toBe('sent');
    expect(await createSimulatorClient(world.sim.url, appId).texts('o-platform')).toEqual([
      'via the platform',
    ]);

    const later = await world.api.schedule({
      appId,
      openid: 'o-platform',
      message: aTextMessage('never'),
      delayMs: 60_000,
    });
    const revoked = await call<{ body: string }>(`${world.sim.url}/__sim/component/authorizations`, {
      json: { appId, action: 'unauthorize' },
    });
    expect(revoked.body.body).toBe('success');
    expect((await world.api.message(later.id)).status).toBe('cancelled');
    expect((await world.api(`/v1/accounts/${appId}`)).body).toMatchObject({
      enabled: false,
      status: 'unauthorized',
    });
    // Both were WeChat's doing, and the audit log says so (docs/api.md "The audit log").
    const audit = await world.api(`/v1/audit?appId=${appId}`);
    expect(
      audit.body.entries.map((e: { action: string; actor: unknown; source: string; details: unknown }) => [
        e.action,
        e.actor,
        e.source,
        e.details,
      ]),
    ).toEqual([
      ['account.unauthorized', { kind: 'wechat' }, 'wechat', { cause: 'revoked', cancelled: 1 }],
      ['account.authorized', { kind: 'wechat' }, 'wechat', { outcome: 'created', permissions: [1, 7] }],
    ]);
  });

  it('refuses a push captured at one connected account’s URL at another’s, within the skew window: 401, no contact window opened there', async () => {
    /** The account's admin consents on the authorization page and the browser follows the redirect. */
    const connect = async (appId: string) => {
      const started = await world.api('/v1/platform/authorizations', {
        json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
      });
      const page = new URL(started.body.authorizationUrl as string);
      page.searchParams.set('sim_appid', appId);
      const consented = await fetch(page, { redirect: 'manual' });
      expect((await call(consented.headers.get('location')!)).status).toBe(200);
    };
    const [a, b] = ['wxreplayedfrom01', 'wxreplayedinto01'];
    await connect(a);
    await connect(b);
    const captured = await createSimulatorClient(world.sim.url, a).follow('o-captured');
    expect(captured.pushes.map((p) => `${p.status} ${p.body}`)).toEqual(['200 success']);
    await waitFor(
      async () => (await world.api.follower(a, 'o-captured')).follower !== null,
      'the follow to open a window at the account it was meant for',
    );
    const { path, body, contentType } = captured.wire;

    const replayed = await call(`${world.api.url}${path.replace(`/platform/${a}?`, `/platform/${b}?`)}`, {
      body,
      headers: { 'content-type': contentType },
    });

    expect(replayed.status).toBe(401);
    // Refused at the door: nothing recorded at B, so no window opens there.
    const again = await call(`${world.api.url}${path}`, { body, headers: { 'content-type': contentType } });
    expect(`${again.status} ${again.text}`).toBe('200 success'); // WeChat's retry at the right URL
    expect((await world.api.follower(b, 'o-captured')).follower).toBeNull();
  });

  it('says where its callback is; the callback sends a browser (Accept: text/html) to the account on the admin page, and answers an API caller JSON', async () => {
    const platform = await world.api('/v1/platform');
    expect(platform.body).toEqual({ configured: true, callbackPath: '/wechat/platform/callback' });
    /** The account's admin consents on the authorization page; answers the callback URL WeChat redirects to. */
    const consentedCallback = async (appId: string) => {
      const started = await world.api('/v1/platform/authorizations', {
        json: { redirectUri: `${world.api.url}${platform.body.callbackPath}` },
      });
      const page = new URL(started.body.authorizationUrl as string);
      page.searchParams.set('sim_appid', appId);
      return (await fetch(page, { redirect: 'manual' })).headers.get('location')!;
    };
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

    const browserCallback = await consentedCallback('wxconnectedbybrowser');
    const browser = await fetch(browserCallback, { headers: html, redirect: 'manual' });
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toBe('/admin/accounts/wxconnectedbybrowser?connected=created');
    expect((await world.api('/v1/accounts/wxconnectedbybrowser')).body).toMatchObject({ kind: 'platform' });
    const again = await fetch(browserCallback, { headers: html, redirect: 'manual' });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/admin/accounts/wxconnectedbybrowser?connected=created');
    const unknown = withCode(await startedCallback(), 'queryauthcode@@@never-issued');
    const refusedInBrowser = await fetch(unknown, { headers: html, redirect: 'manual' });
    expect(refusedInBrowser.status).toBe(303);
    expect(refusedInBrowser.headers.get('location')).toBe('/admin/accounts?connect_error=auth_code_invalid');

    const apiCallback = await consentedCallback('wxconnectedbyapi');
    const json = await call(apiCallback, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({ appId: 'wxconnectedbyapi', outcome: 'created', permissions: [1, 7] });
    const refused = await call(withCode(await startedCallback(), 'queryauthcode@@@never-issued'), {
      headers: { accept: 'application/json' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('auth_code_invalid');
  });

  it('an admin who closes the browser before the redirect still connects the account: the `authorized` push’s code is exchanged, once', async () => {
    const appId = 'wxconnectedbypush1';
    const started = await world.api('/v1/platform/authorizations', {
      json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
    });
    const page = new URL(started.body.authorizationUrl as string);
    page.searchParams.set('sim_appid', appId);
    const consented = await fetch(page, { redirect: 'manual' }); // the redirect is never followed
    expect(consented.status).toBe(302);

    const account = await waitFor(async () => {
      const res = await world.api(`/v1/accounts/${appId}`);
      return res.status === 200 && res.body;
    }, 'the account connected from the authorized push alone');
    expect(account).toMatchObject({ kind: 'platform', status: 'active', permissions: [1, 7] });
    // The browser arriving late after all gets the same answer; WeChat was asked once.
    const late = await call(consented.headers.get('location')!);
    expect(late.body).toEqual({ appId, outcome: 'created', permissions: [1, 7] });
    expect((await redemptions()).filter((r) => r.appId === appId).map((r) => r.errcode)).toEqual([0]);
  });

  it('the callback asks WeChat nothing for a code that does not come back with the state of a link the service made', async () => {
    const before = (await redemptions()).length;
    const callbackUrl = `${world.api.url}/wechat/platform/callback`;
    const code = 'queryauthcode@@@guessed';
    const noState = await call(`${callbackUrl}?auth_code=${encodeURIComponent(code)}`);
    expect(noState.status).toBe(400);
    expect(noState.body.error.code).toBe('state_invalid');
    const forged = await call(`${callbackUrl}?state=forged&auth_code=${encodeURIComponent(code)}`);
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('state_invalid');
    const inBrowser = await fetch(`${callbackUrl}?auth_code=x`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(inBrowser.headers.get('location')).toBe('/admin/accounts?connect_error=state_invalid');

    // A real link's state, used once with a code, serves no other code (its reload gets the same answer).
    const callback = await startedCallback();
    expect((await call(withCode(callback, code))).body.error.code).toBe('auth_code_invalid');
    expect((await call(withCode(callback, code))).body.error.code).toBe('auth_code_invalid');
    const other = await call(withCode(callback, 'queryauthcode@@@another'));
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('state_invalid');
    // WeChat was asked about the one code that came back with a good state: twice (the reload), nothing else.
    expect((await redemptions()).slice(before).map((r) => r.errcode)).toEqual([61009, 61009]);
  });

  it('says WeChat refused a pre-auth code, and why (409 wechat_refused with the errcode), while this server is not in the platform’s IP whitelist', async () => {
    const whitelisted = (registered: boolean) =>
      call(`${world.sim.url}/__sim/component/ip-whitelist`, { json: { registered } });
    expect((await whitelisted(false)).status).toBe(200);
    try {
      const refused = await world.api('/v1/platform/authorizations', {
        json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'wechat_refused', details: { errcode: 61004 } });
      expect(refused.body.error.message).toContain('61004');
    } finally {
      await whitelisted(true);
    }
    expect(await startedCallback()).toContain('state=');
  });

  it('refuses a push the platform did not sign, with 401', async () => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const query = `timestamp=${timestamp}&nonce=1&encrypt_type=aes&msg_signature=${'0'.repeat(40)}`;
    const res = await call(`${world.api.url}/wechat/component?${query}`, {
      body: `<xml><AppId>${PLATFORM.WECHAT_COMPONENT_APP_ID}</AppId><Encrypt>AAAA</Encrypt></xml>`,
      headers: { 'content-type': 'text/xml' },
    });
    expect(res.status).toBe(401);
  });

  it('keeps the tickets, codes and platform secrets out of clear: not in a database dump, not in the logs', async () => {
    const evidence = leakEvidence(world);
    const [dump, logs] = [evidence.dump, evidence.logs.join('')];

    expect(dump).toContain('COPY public.component_tickets');
    expect(logs).toContain('platform push taken');
    const secrets = ['ticket@@@', 'queryauthcode@@@', 'refreshtoken@@@', ...Object.values(PLATFORM).slice(1)];
    for (const secret of secrets) {
      expect(dump.includes(secret) ? `${secret} in the dump` : 'absent').toBe('absent');
      expect(logs.includes(secret) ? `${secret} in a log` : 'absent').toBe('absent');
    }
  });

  // Last: it spends this address's callbacks for the minute.
  it('limits the callbacks that may ask WeChat, per source address: 429 with Retry-After, and WeChat is not asked', async () => {
    const before = (await redemptions()).length;
    const answers: number[] = [];
    let limited: Response | undefined;
    // 30 a minute, refilled one every 2 s: a slow machine may need a few more tries than 31.
    while (!limited && answers.length < 60) {
      const res = await fetch(withCode(await startedCallback(), `queryauthcode@@@flood-${answers.length}`));
      answers.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answers.filter((s) => s !== 400 && s !== 429)).toEqual([]);
    // Every refused-as-unknown code was asked about; the limited one was not.
    expect((await redemptions()).length - before).toBe(answers.filter((s) => s === 400).length);
  });
});
