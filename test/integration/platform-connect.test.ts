import type { Service } from '../../src/main/start-service';
import type { OpenPlatform } from '../../src/simulator/open-platform';
import { anAppId, aSequence, aStep, aTextMessage } from '../helpers/builders';
import { type Harness, waitFor, writtenRows } from '../helpers/harness';
import { aPlatform, aTextSentThrough, startPlatformHarness } from '../helpers/platform';

const PLATFORM = aPlatform();
let h: Harness;
let service: Service;
let sim: OpenPlatform;
/** WeChat's clock runs this far ahead of ours (an authorization code left to expire). */
let wechatAheadMs = 0;

beforeAll(async () => {
  ({ h, service, sim } = await startPlatformHarness(PLATFORM, () => Date.now() + wechatAheadMs));
});
afterAll(() => h.close());

const start = async (redirectUri = `${service.url}/wechat/platform/callback`) =>
  h.api(service, '/v1/platform/authorizations', { method: 'POST', body: JSON.stringify({ redirectUri }) });

/** The admin of `appId` opens the link and consents: the page answers a redirect to the callback. */
async function consent(authorizationUrl: string, appId: string, func?: string): Promise<Response> {
  const url = new URL(authorizationUrl);
  url.searchParams.set('sim_appid', appId);
  if (func) url.searchParams.set('sim_func', func);
  return fetch(url, { redirect: 'manual' });
}
/**
 * `consent` while WeChat's `authorized` push does not reach the service, which would exchange the code
 * at once: the callback is then the only one to bring it. Gives the callback URL.
 */
async function consentWithoutPush(appId: string): Promise<string> {
  const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
  sim.losePushes(true);
  try {
    return (await consent(authorizationUrl, appId)).headers.get('location')!;
  } finally {
    sim.losePushes(false);
  }
}
/** A code WeChat never issued. */
const UNKNOWN_CODE = 'queryauthcode@@@never-issued';
/** The callback of a fresh link (its state in it) with a code WeChat never issued. */
async function unknownCodeCallback(): Promise<string> {
  const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
  const callback = new URL(new URL(authorizationUrl).searchParams.get('redirect_uri')!);
  callback.searchParams.set('auth_code', UNKNOWN_CODE);
  return callback.toString();
}

async function connect(appId: string): Promise<{ callback: string; answer: Response }> {
  const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
  const page = await consent(authorizationUrl, appId);
  expect(page.status).toBe(302);
  const callback = page.headers.get('location')!;
  return { callback, answer: await fetch(callback) };
}
/** What Chromium sends when it follows WeChat's redirect to the callback. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const fromBrowser = (callback: string) =>
  fetch(callback, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
const errorOf = async (res: Response) =>
  `${res.status} ${((await res.json()) as { error: { code: string } }).error.code}`;
const accountCount = async () =>
  (await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts')).rows[0].n;

describe('connecting an official account through the platform', () => {
  it('gives a pre-auth code and the authorization link for official accounts', async () => {
    const res = await start();
    expect(res.status).toBe(201);
    const body = (await res.json()) as { preAuthCode: string; expiresInS: number; authorizationUrl: string };
    const url = new URL(body.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${h.simulatorUrl}/cgi-bin/componentloginpage`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      component_appid: PLATFORM.componentAppId,
      pre_auth_code: body.preAuthCode,
      redirect_uri: expect.stringMatching(/\/wechat\/platform\/callback\?state=[\w-]{32}$/),
      auth_type: '1',
    });
    expect(url.searchParams.get('redirect_uri')).toContain(`${service.url}/wechat/platform/callback?`);
    expect(body.expiresInS).toBe(600);
  });

  it('the callback creates the account with its permissions, and its messages go out through the platform', async () => {
    const appId = anAppId();
    const { answer } = await connect(appId);

    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ appId, outcome: 'created', permissions: [1, 7] });
    expect(await (await h.api(service, `/v1/accounts/${appId}`)).json()).toMatchObject({
      kind: 'platform',
      status: 'active',
      hasSecret: false,
      webhook: true,
      webhookUrl: `/wechat/platform/${appId}`,
      permissions: [1, 7],
      missingPermissions: [],
    });
    // No follower interaction in this test: the contact window is not checked for it.
    const patched = await h.api(service, `/v1/accounts/${appId}`, {
      method: 'PATCH',
      body: JSON.stringify({ windowPolicy: 'none' }),
    });
    expect(patched.status).toBe(200);
    expect((await aTextSentThrough(h, service, appId, 'hello from the platform')).status).toBe(201);
    expect(await waitFor(() => h.simulator.messages({ appId }).length === 1, 10_000)).toBe(true);
  });

  it('answers the same code again with the same outcome, and refuses a code WeChat never issued (400 auth_code_invalid), writing nothing', async () => {
    const appId = anAppId();
    const { callback } = await connect(appId);
    expect(new URL(callback).searchParams.get('auth_code')).toMatch(/^queryauthcode@@@/);
    const unknown = await unknownCodeCallback();
    const before = { accounts: await accountCount(), ...(await writtenRows(h.db)) };

    expect(await (await fetch(callback)).json()).toEqual({ appId, outcome: 'created', permissions: [1, 7] });
    expect(await errorOf(await fetch(unknown))).toBe('400 auth_code_invalid');
    expect({ accounts: await accountCount(), ...(await writtenRows(h.db)) }).toEqual(before);
  });

  it('refuses a code left to expire (400 auth_code_expired), writing nothing', async () => {
    const callback = await consentWithoutPush(anAppId());
    const before = { accounts: await accountCount(), ...(await writtenRows(h.db)) };
    wechatAheadMs = 601_000;
    try {
      expect(await errorOf(await fetch(callback))).toBe('400 auth_code_expired');
    } finally {
      wechatAheadMs = 0;
    }
    expect({ accounts: await accountCount(), ...(await writtenRows(h.db)) }).toEqual(before);
  });

  it('refuses a pre-auth code used once at the authorization page, a bad redirectUri, a callback without code', async () => {
    const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
    expect((await consent(authorizationUrl, anAppId())).status).toBe(302);
    expect((await consent(authorizationUrl, anAppId())).status).toBe(400);

    expect(await errorOf(await start('not a url'))).toBe('400 validation_error');
    expect(await errorOf(await fetch(`${service.url}/wechat/platform/callback`))).toBe(
      '400 validation_error',
    );
  });

  it('GET /v1/platform says the platform is configured and where its callback is', async () => {
    const res = await h.api(service, '/v1/platform');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ configured: true, callbackPath: '/wechat/platform/callback' });
  });

  describe('the callback, opened by a browser', () => {
    it('creates the account and redirects (303) to it on the admin page with the outcome', async () => {
      const appId = anAppId();
      const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
      const callback = (await consent(authorizationUrl, appId)).headers.get('location')!;

      const res = await fromBrowser(callback);

      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/admin/accounts/${appId}?connected=created`);
      expect(await (await h.api(service, `/v1/accounts/${appId}`)).json()).toMatchObject({
        kind: 'platform',
        permissions: [1, 7],
      });
    });

    it('sends an unknown, an expired or a missing code to the Accounts page with the error’s code, writing nothing', async () => {
      const callback = `${service.url}/wechat/platform/callback`;
      const expiring = await consentWithoutPush(anAppId());
      const unknown = await unknownCodeCallback();
      const before = { accounts: await accountCount(), ...(await writtenRows(h.db)) };

      const answers = [await fromBrowser(unknown), await fromBrowser(callback)];
      wechatAheadMs = 601_000;
      try {
        answers.push(await fromBrowser(expiring));
      } finally {
        wechatAheadMs = 0;
      }

      expect(answers.map((a) => `${a.status} ${a.headers.get('location')}`)).toEqual([
        '303 /admin/accounts?connect_error=auth_code_invalid',
        '303 /admin/accounts?connect_error=validation_error',
        '303 /admin/accounts?connect_error=auth_code_expired',
      ]);
      expect({ accounts: await accountCount(), ...(await writtenRows(h.db)) }).toEqual(before);
    });
  });

  it('an account authorizing again is enabled again with its new permissions, a missing one shown on it', async () => {
    const appId = anAppId();
    await connect(appId);
    await sim.authorize(appId, 'unauthorize');
    expect(await (await h.api(service, `/v1/accounts/${appId}`)).json()).toMatchObject({
      status: 'unauthorized',
    });

    const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
    const again = await fetch((await consent(authorizationUrl, appId, '1')).headers.get('location')!);
    expect(await again.json()).toEqual({ appId, outcome: 'updated', permissions: [1] });
    expect(await (await h.api(service, `/v1/accounts/${appId}`)).json()).toMatchObject({
      enabled: true,
      status: 'active',
      permissions: [1],
      missingPermissions: ['template'],
    });
  });

  it('refuses at save time a step whose channel the account did not grant, naming the step, writing nothing', async () => {
    const appId = anAppId();
    const { authorizationUrl } = (await (await start()).json()) as { authorizationUrl: string };
    await fetch((await consent(authorizationUrl, appId, '7')).headers.get('location')!);
    expect(await (await h.api(service, `/v1/accounts/${appId}`)).json()).toMatchObject({
      missingPermissions: ['custom'],
    });
    const before = await writtenRows(h.db);

    const res = await h.api(service, '/v1/sequences', {
      method: 'POST',
      body: JSON.stringify(aSequence({ appId })),
    });

    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    expect(error.details).toEqual([
      {
        path: 'steps.0.message',
        message: expect.stringMatching(/customer-service messages \(permission set 1/),
        rule: { kind: 'missing_permission', channel: 'custom' },
      },
    ]);
    expect(await writtenRows(h.db)).toEqual(before);
  });

  describe('the connected accounts’ pushes at /wechat/platform/:appId', () => {
    it('a follow, pushed in safe mode with the platform’s key, starts the account’s drip', async () => {
      const appId = anAppId();
      await connect(appId);
      const sequence = await h.api(service, '/v1/sequences', {
        method: 'POST',
        body: JSON.stringify(
          aSequence({ appId, steps: [aStep({ message: aTextMessage('welcome via the platform') })] }),
        ),
      });
      expect(sequence.status).toBe(201);

      const follow = await h.simulator.push('follow', 'o-platform-follower', { appId });

      expect(follow.pushes.map((p) => `${p.status} ${p.body}`)).toEqual(['200 success']);
      expect(
        await waitFor(
          () => h.simulator.messages({ appId, openid: 'o-platform-follower' }).length === 1,
          10_000,
        ),
      ).toBe(true);
    });

    /** Posts a captured push again, at the URL of `appId` instead of its own. */
    const replayAt = (
      wire: { path: string; body: string; contentType: string },
      from: string,
      appId: string,
    ) =>
      fetch(`${service.url}${wire.path.replace(`/platform/${from}?`, `/platform/${appId}?`)}`, {
        method: 'POST',
        headers: { 'content-type': wire.contentType },
        body: wire.body,
      });
    const originalIdOf = async (appId: string) =>
      (
        await h.db.pool.query<{ original_id: string | null }>(
          'SELECT original_id FROM accounts WHERE app_id = $1',
          [appId],
        )
      ).rows[0].original_id;

    it('keeps each account’s original id (api_get_authorizer_info), and refuses a push captured at one account’s URL at another’s (401), recording nothing', async () => {
      const [a, b] = [anAppId(), anAppId()];
      await connect(a);
      await connect(b);
      expect(await originalIdOf(a)).toMatch(/^gh_[0-9a-f]{12}$/);
      const follow = await h.simulator.push('follow', 'o-captured', { appId: a });
      expect(follow.pushes.map((p) => `${p.status} ${p.body}`)).toEqual(['200 success']);
      expect(follow.fields.ToUserName).toBe(await originalIdOf(a));
      const before = await writtenRows(h.db);

      const replayed = await replayAt(follow.wire, a, b);

      expect(replayed.status).toBe(401);
      expect(await writtenRows(h.db)).toEqual(before);
      // WeChat's retry of the push at its own URL is still answered.
      expect((await replayAt(follow.wire, a, a)).status).toBe(200);
    });

    it('an account whose original id is not known (connected before it was kept): a push taken at another account is refused there by its remembered signature (409)', async () => {
      const [a, b] = [anAppId(), anAppId()];
      await connect(a);
      await connect(b);
      await h.db.pool.query('UPDATE accounts SET original_id = NULL WHERE app_id = $1', [b]);
      await service.accounts.refresh();
      const follow = await h.simulator.push('follow', 'o-captured-early', { appId: a });
      expect(follow.pushes.map((p) => p.status)).toEqual([200]);
      const before = await writtenRows(h.db);

      const replayed = await replayAt(follow.wire, a, b);

      expect(
        `${replayed.status} ${((await replayed.json()) as { error: { code: string } }).error.code}`,
      ).toBe('409 push_replayed');
      expect(await writtenRows(h.db)).toEqual(before);
    });

    it('refuses an own account’s app id (401, as an unsigned push) and an account that revoked the platform (403), recording nothing', async () => {
      const appId = anAppId();
      await connect(appId);
      await sim.authorize(appId, 'unauthorize');
      const before = await writtenRows(h.db);

      const revoked = await h.simulator.push('follow', 'o-revoked', { appId });
      expect(revoked.pushes.map((p) => p.status)).toEqual([403]);
      const own = await fetch(`${service.url}/wechat/platform/wxtest0000000001?timestamp=1&nonce=1`, {
        method: 'POST',
        body: '<xml/>',
      });
      expect(own.status).toBe(401);
      expect(await writtenRows(h.db)).toEqual(before);
    });
  });
});
