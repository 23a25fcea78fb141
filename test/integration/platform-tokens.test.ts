import { createPlatformTokens, refreshTokenContext } from '../../src/accounts/platform-tokens';
import { createSecretBox } from '../../src/accounts/secret-box';
import { createTokenSealer } from '../../src/accounts/service-tokens';
import { ticketContext } from '../../src/accounts/take-platform-event';
import type { PlatformConfig } from '../../src/config';
import type { Service } from '../../src/main/start-service';
import type { OpenPlatform } from '../../src/simulator/open-platform';
import { insertAccount } from '../../src/store/accounts';
import { saveComponentTicket, saveRefreshToken } from '../../src/store/platform';
import { AppError } from '../../src/errors';
import { createTokenStore, type TokenStore } from '../../src/wechat/tokens';
import { aNewMessage, anAppId, aStoredAccount } from '../helpers/builders';
import { ACCOUNTS_ENCRYPTION_KEY, createHarness, type Harness, waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';
import { aPlatform, aTextSentThrough } from '../helpers/platform';
import { seedMessages } from '../helpers/seed';

const PLATFORM = aPlatform();
const CONFIG: PlatformConfig = {
  componentAppId: PLATFORM.componentAppId,
  componentSecret: PLATFORM.secret,
  componentToken: PLATFORM.token,
  componentEncodingAESKey: PLATFORM.encodingAESKey,
  loginPageUrl: 'https://mp.weixin.qq.com/cgi-bin/componentloginpage',
};
const box = createSecretBox(Buffer.from(ACCOUNTS_ENCRYPTION_KEY, 'base64'));
let h: Harness;
let service: Service;
let sim: OpenPlatform;

beforeAll(async () => {
  h = await createHarness({ ...PLATFORM.env }, { simulatorComponent: PLATFORM });
  service = await h.start();
  sim = h.simulator.openPlatform!;
  expect((await sim.pushTicket()).body).toBe('success');
});
afterAll(() => h.close());

/**
 * A platform account that authorized the platform in the simulator, with its refresh token stored (by
 * the test: the `authorized` push, which would connect it with a cached token, does not reach the service).
 */
async function anAuthorizedAccount(): Promise<string> {
  const appId = anAppId();
  sim.losePushes(true);
  try {
    await sim.authorize(appId, 'authorize');
  } finally {
    sim.losePushes(false);
  }
  await insertAccount(h.db.pool, aStoredAccount(box, { appId, kind: 'platform', windowPolicy: 'none' }));
  await saveRefreshToken(h.db.pool, appId, box.seal(sim.refreshTokenOf(appId)!, refreshTokenContext(appId)));
  await service.accounts.refresh();
  return appId;
}

/** A token store as one more process would have it, on this harness's database and simulator. */
function aTokenStore(platform: PlatformConfig = CONFIG): TokenStore {
  const chain = createPlatformTokens({
    pool: h.db.pool,
    box,
    platform,
    api: { baseUrl: h.simulatorUrl, timeoutMs: 5000 },
    logger: silentLogger,
    isPlatformAccount: (appId) => service.accounts.get(appId)?.kind === 'platform',
  });
  const store: TokenStore = createTokenStore({
    pool: h.db.pool,
    sealer: createTokenSealer(box),
    baseUrl: h.simulatorUrl,
    secretOf: () => null,
    platformSourceOf: (appId) => chain.sourceOf(appId, store),
    refreshMarginMs: 240_000,
    timeoutMs: 5000,
    logger: silentLogger,
  });
  return store;
}

const errcodeOf = async (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => 'no error',
    (err: AppError) => ({ code: err.code, retryable: err.retryable, ...(err.details as object) }),
  );
const tokenRows = async (key: string) =>
  (await h.db.pool.query('SELECT token FROM access_tokens WHERE app_id = $1', [key])).rows;

describe('the platform’s token chain', () => {
  it('a platform account’s message goes out with an authorizer token got through the component token', async () => {
    const appId = await anAuthorizedAccount();
    const { status, openid } = await aTextSentThrough(h, service, appId, 'through the platform');
    expect(status).toBe(201);

    expect(await waitFor(() => h.simulator.messages({ appId }).length === 1, 10_000)).toBe(true);
    expect(h.simulator.messages({ appId })[0]).toMatchObject({ appId, openid, channel: 'custom' });
    expect(await tokenRows(`component:${PLATFORM.componentAppId}`)).toHaveLength(1);
    expect(await tokenRows(appId)).toHaveLength(1);
  });

  it('two processes asking at once make one refresh, and both get the token it stored', async () => {
    const appId = await anAuthorizedAccount();
    const before = h.simulator.stats().tokens.issued;
    const [a, b] = await Promise.all([aTokenStore().getToken(appId), aTokenStore().getToken(appId)]);
    expect(a).toBe(b);
    expect(h.simulator.stats().tokens.issued - before).toBe(1);
    const rows = (await tokenRows(appId)) as { token: string }[];
    expect(rows.map((r) => createTokenSealer(box).open(appId, r.token))).toEqual([a]);
  });

  it('a refresh token WeChat refuses (61023) marks the account unauthorized and cancels its open messages once', async () => {
    const appId = await anAuthorizedAccount();
    await saveRefreshToken(h.db.pool, appId, box.seal('refreshtoken@@@stale', refreshTokenContext(appId)));
    const [id] = await seedMessages(h.db.pool, [
      aNewMessage({ appId, dueAt: new Date(Date.now() + 3_600_000) }),
    ]);

    expect(await errcodeOf(aTokenStore().getToken(appId))).toMatchObject({
      code: 'token_error',
      errcode: 61023,
      retryable: false,
    });
    const { rows } = await h.db.pool.query(
      `SELECT enabled, unauthorized_at IS NOT NULL AS unauthorized FROM accounts WHERE app_id = $1`,
      [appId],
    );
    expect(rows).toEqual([{ enabled: false, unauthorized: true }]);
    expect(await (await h.api(service, `/v1/messages/${id}`)).json()).toMatchObject({ status: 'cancelled' });
    await errcodeOf(aTokenStore().getToken(appId));
    expect(
      (await h.db.pool.query('SELECT reason, actor FROM cancellations WHERE app_id = $1', [appId])).rows,
    ).toEqual([{ reason: 'account_unauthorized', actor: 'wechat:token_refused' }]);
    // Once in the audit log, by WeChat, with what it cancelled.
    expect(
      (
        await h.db.pool.query(
          `SELECT actor, source, details FROM audit_log WHERE app_id = $1 AND action = 'account.unauthorized'`,
          [appId],
        )
      ).rows,
    ).toEqual([
      { actor: { kind: 'wechat' }, source: 'wechat', details: { cause: 'token_refused', cancelled: 1 } },
    ]);
  });

  it('an account that revoked the authorization in WeChat (61003) is marked unauthorized too', async () => {
    const appId = await anAuthorizedAccount();
    sim.authorize(appId, 'unauthorize').catch(() => undefined);
    await waitFor(() => sim.refreshTokenOf(appId) === null, 1000);
    // The service may also have heard the unauthorized push by now: either way the account ends so,
    // and the api process sees it within the registry's 2 s.
    await errcodeOf(aTokenStore().getToken(appId));
    const status = async () =>
      ((await (await h.api(service, `/v1/accounts/${appId}`)).json()) as { status: string }).status;
    expect(await waitFor(async () => (await status()) === 'unauthorized', 2000)).toBe(true);
  });

  it('says what is missing before any ticket came (retryable), and names 61004 and 61011 from WeChat', async () => {
    const other = { ...CONFIG, componentAppId: anAppId() };
    const key = `component:${other.componentAppId}`;
    expect(await errcodeOf(aTokenStore(other).getToken(key))).toMatchObject({
      code: 'token_error',
      retryable: true,
      errmsg: 'no ticket',
    });

    await saveComponentTicket(h.db.pool, {
      componentAppId: other.componentAppId,
      ticketSealed: box.seal('ticket@@@x', ticketContext(other.componentAppId)),
      pushedAt: new Date(),
    });
    for (const [registered, errcode] of [
      [false, 61004],
      [true, 61011],
    ] as const) {
      const body = JSON.stringify({ registered });
      await fetch(`${h.simulatorUrl}/__sim/component/ip-whitelist`, { method: 'POST', body });
      expect(await errcodeOf(aTokenStore(other).getToken(key))).toMatchObject({ errcode, retryable: false });
    }
  });

  it('a ticket that is not the latest is refused by WeChat (61006), and heals with the next push', async () => {
    const key = `component:${PLATFORM.componentAppId}`;
    await h.db.pool.query('DELETE FROM access_tokens WHERE app_id = $1', [key]);
    await saveComponentTicket(h.db.pool, {
      componentAppId: PLATFORM.componentAppId,
      ticketSealed: box.seal('ticket@@@forged', ticketContext(PLATFORM.componentAppId)),
      pushedAt: new Date(Date.now() + 60_000),
    });
    expect(await errcodeOf(aTokenStore().getToken(key))).toMatchObject({ errcode: 61006, retryable: true });
    await h.db.pool.query('DELETE FROM component_tickets');
    await sim.pushTicket();
    expect(typeof (await aTokenStore().getToken(key))).toBe('string');
  });
});
