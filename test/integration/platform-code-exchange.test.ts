import { createHash } from 'node:crypto';
import { refreshTokenContext } from '../../src/accounts/platform-tokens';
import { createSecretBox } from '../../src/accounts/secret-box';
import type { Service } from '../../src/main/start-service';
import type { CodeRedemption } from '../../src/simulator/component-auth';
import type { OpenPlatform } from '../../src/simulator/open-platform';
import { anAccountBody, anAppId } from '../helpers/builders';
import { ACCOUNTS_ENCRYPTION_KEY, type Harness, waitFor } from '../helpers/harness';
import {
  aComponentPush,
  anAuthorizationPush,
  aPlatform,
  nowS,
  startPlatformHarness,
} from '../helpers/platform';

const PLATFORM = aPlatform();
const box = createSecretBox(Buffer.from(ACCOUNTS_ENCRYPTION_KEY, 'base64'));
/** The harness, the service and the simulated Open Platform of this file. */
let world: { h: Harness; service: Service; sim: OpenPlatform };
/** WeChat's clock runs this far ahead of ours (the component token expired in its eyes). */
let wechatAheadMs = 0;

beforeAll(async () => {
  world = await startPlatformHarness(PLATFORM, () => Date.now() + wechatAheadMs);
});
afterAll(() => world.h.close());

/**
 * The admin of `appId` opens a fresh authorization link and consents: the simulated Open Platform pushes
 * `authorized` (answered before it redirects), then answers the redirect, not followed. Gives the
 * callback URL WeChat sends the browser to.
 */
async function consent(appId: string): Promise<string> {
  const started = await world.h.api(world.service, '/v1/platform/authorizations', {
    method: 'POST',
    body: JSON.stringify({ redirectUri: `${world.service.url}/wechat/platform/callback` }),
  });
  const page = new URL(((await started.json()) as { authorizationUrl: string }).authorizationUrl);
  page.searchParams.set('sim_appid', appId);
  const res = await fetch(page, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return res.headers.get('location')!;
}
/** `consent` while WeChat's pushes do not reach the service: only the callback brings the code. */
async function consentWithoutPush(appId: string): Promise<string> {
  world.sim.losePushes(true);
  try {
    return await consent(appId);
  } finally {
    world.sim.losePushes(false);
  }
}
const codeOf = (callback: string) => new URL(callback).searchParams.get('auth_code')!;

/** Delivers the `authorized` push of `code` (as WeChat would have) to the authorization-event URL. */
async function pushAuthorized(appId: string, code: string): Promise<string> {
  const push = aComponentPush(
    PLATFORM,
    anAuthorizationPush(PLATFORM.componentAppId, 'authorized', appId, nowS(), code),
  );
  const res = await fetch(`${world.service.url}/wechat/component?${push.query}`, {
    method: 'POST',
    headers: { 'content-type': push.contentType },
    body: push.body,
  });
  return `${res.status} ${await res.text()}`;
}

/** The `api_query_auth` calls the simulated Open Platform answered for `appId`. */
const redemptionsOf = async (appId: string): Promise<CodeRedemption[]> =>
  (
    (await (await fetch(`${world.h.simulatorUrl}/__sim/component/redemptions`)).json()) as {
      redemptions: CodeRedemption[];
    }
  ).redemptions.filter((r) => r.appId === appId);
/** How many codes pushes brought with this result (wechat_drip_authorization_codes_total). */
const pushedCodes = async (result: string): Promise<number> =>
  (await world.service.metrics.authorizationCodes.get()).values.find(
    (v) => v.labels.by === 'push' && v.labels.result === result,
  )?.value ?? 0;
const accountOf = async (appId: string) => {
  const res = await world.h.api(world.service, `/v1/accounts/${appId}`);
  return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
};
const untilAccount = (appId: string, check: (a: Record<string, unknown>) => boolean = () => true) =>
  waitFor(async () => {
    const account = await accountOf(appId);
    return account !== null && check(account);
  }, 10_000);
const callbackAnswer = async (callback: string) => {
  const res = await fetch(callback);
  return { status: res.status, body: await res.json() };
};

describe('exchanging the authorization code of an `authorized` / `updateauthorized` push', () => {
  it('the push alone connects the account, as if the admin had closed the browser before the redirect', async () => {
    const appId = anAppId();
    await consent(appId);

    expect(await untilAccount(appId)).toBe(true);
    expect(await accountOf(appId)).toMatchObject({
      kind: 'platform',
      status: 'active',
      permissions: [1, 7],
      missingPermissions: [],
    });
    const { rows } = await world.h.db.pool.query<{ sealed: string }>(
      'SELECT authorizer_refresh_token_sealed AS sealed FROM accounts WHERE app_id = $1',
      [appId],
    );
    expect(box.open(rows[0].sealed, refreshTokenContext(appId))).toBe(world.sim.refreshTokenOf(appId));
    expect((await redemptionsOf(appId)).map((r) => r.errcode)).toEqual([0]);
  });

  it('push first, then the callback: the callback answers the push’s outcome, with one api_query_auth call', async () => {
    const appId = anAppId();
    const callback = await consent(appId);
    expect(await untilAccount(appId)).toBe(true);

    expect(await callbackAnswer(callback)).toEqual({
      status: 200,
      body: { appId, outcome: 'created', permissions: [1, 7] },
    });
    const browser = await fetch(callback, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(`${browser.status} ${browser.headers.get('location')}`).toBe(
      `303 /admin/accounts/${appId}?connected=created`,
    );
    expect((await redemptionsOf(appId)).map((r) => r.errcode)).toEqual([0]);
  });

  it('callback first, then the push: the push reads the callback’s outcome and makes no second call', async () => {
    const appId = anAppId();
    const callback = await consentWithoutPush(appId);
    expect(await callbackAnswer(callback)).toEqual({
      status: 200,
      body: { appId, outcome: 'created', permissions: [1, 7] },
    });
    const earlier = await pushedCodes('earlier');

    expect(await pushAuthorized(appId, codeOf(callback))).toBe('200 success');

    expect(await waitFor(async () => (await pushedCodes('earlier')) === earlier + 1, 10_000)).toBe(true);
    expect((await redemptionsOf(appId)).map((r) => r.errcode)).toEqual([0]);
  });

  it('a push and the callback at once: the code is exchanged once, and the callback answers its outcome', async () => {
    const appId = anAppId();
    const callback = await consentWithoutPush(appId);
    const before = (await pushedCodes('exchanged')) + (await pushedCodes('earlier'));

    const [pushed, answer] = await Promise.all([
      pushAuthorized(appId, codeOf(callback)),
      callbackAnswer(callback),
    ]);

    expect(pushed).toBe('200 success');
    expect(answer).toEqual({ status: 200, body: { appId, outcome: 'created', permissions: [1, 7] } });
    const pushDone = async () => (await pushedCodes('exchanged')) + (await pushedCodes('earlier'));
    expect(await waitFor(async () => (await pushDone()) === before + 1, 10_000)).toBe(true);
    expect((await redemptionsOf(appId)).map((r) => r.errcode)).toEqual([0]);
    const { rows } = await world.h.db.pool.query(
      'SELECT outcome FROM authorization_code_exchanges WHERE app_id = $1',
      [appId],
    );
    expect(rows).toEqual([{ outcome: 'created' }]);
  });

  it('an updateauthorized push changes the account’s permissions', async () => {
    const appId = anAppId();
    await consent(appId);
    expect(await untilAccount(appId)).toBe(true);

    expect((await world.sim.authorize(appId, 'update', [1])).body).toBe('success');

    expect(await untilAccount(appId, (a) => (a.permissions as number[]).join() === '1')).toBe(true);
    expect(await accountOf(appId)).toMatchObject({
      status: 'active',
      permissions: [1],
      missingPermissions: ['template'],
    });
    expect((await redemptionsOf(appId)).map((r) => r.errcode)).toEqual([0, 0]);
  });

  it('a code WeChat refuses is left: the push is answered `success`, nothing is written', async () => {
    const appId = anAppId();
    const refused = await pushedCodes('refused');

    expect(await pushAuthorized(appId, 'queryauthcode@@@never-issued')).toBe('200 success');

    expect(await waitFor(async () => (await pushedCodes('refused')) === refused + 1, 10_000)).toBe(true);
    expect(await accountOf(appId)).toBeNull();
    const { rows } = await world.h.db.pool.query(
      'SELECT count(*)::int AS n FROM authorization_code_exchanges WHERE app_id = $1',
      [appId],
    );
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('an own account’s app id is left alone by the push, and the callback still answers 409 account_exists', async () => {
    const own = anAccountBody();
    expect(
      (await world.h.api(world.service, '/v1/accounts', { method: 'POST', body: JSON.stringify(own) }))
        .status,
    ).toBe(201);
    const exchanged = await pushedCodes('exchanged');
    const callback = await consent(own.appId);
    expect(await waitFor(async () => (await pushedCodes('exchanged')) === exchanged + 1, 10_000)).toBe(true);

    const answer = await callbackAnswer(callback);

    expect(answer).toMatchObject({ status: 409, body: { error: { code: 'account_exists' } } });
    expect(await accountOf(own.appId)).toMatchObject({ kind: 'own', enabled: true });
    expect((await redemptionsOf(own.appId)).map((r) => r.errcode)).toEqual([0]);
  });

  it('retries a failure that may heal while the code lives: WeChat refusing the component token a moment', async () => {
    const appId = anAppId();
    const callback = await consentWithoutPush(appId);
    const failed = await pushedCodes('failed');
    wechatAheadMs = 7_300_000; // past the component token's 2 h: api_query_auth answers 42001
    try {
      expect(await pushAuthorized(appId, codeOf(callback))).toBe('200 success');
      expect(await waitFor(async () => (await pushedCodes('failed')) === failed + 1, 10_000)).toBe(true);
    } finally {
      wechatAheadMs = 0;
    }

    expect(await untilAccount(appId)).toBe(true);
    expect(await accountOf(appId)).toMatchObject({ kind: 'platform', permissions: [1, 7] });
    expect((await redemptionsOf(appId)).map((r) => r.errcode)).toEqual([0]);
  });

  it('keeps no code in clear: exchanges are known by the code’s SHA-256', async () => {
    const appId = anAppId();
    const callback = await consentWithoutPush(appId);
    await callbackAnswer(callback);
    const { rows } = await world.h.db.pool.query<{ code_sha256: string }>(
      'SELECT code_sha256 FROM authorization_code_exchanges WHERE app_id = $1',
      [appId],
    );
    expect(rows).toEqual([{ code_sha256: createHash('sha256').update(codeOf(callback)).digest('hex') }]);
  });
});
