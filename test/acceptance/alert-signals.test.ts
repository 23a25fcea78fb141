/**
 * docs/operations.md "Operating it", Alerts: what docker/alerts.yml reads is on the service's /metrics when the
 * thing happens. A 45009 and a refused AppSecret each show their account paused with its reason, the
 * refused one also as failed token refreshes; a healthy process reads Postgres and RabbitMQ as up.
 */
import { aMessageRequest } from './support/builders';
import { call } from './support/http';
import { metricValue } from './support/metrics';
import { waitFor } from './support/wait-for';
import { anAccount, startWorld, type World } from './support/world';

const QUOTA_APP_ID = 'wxacceptance0002';
// The service holds a wrong AppSecret for this account: WeChat (the simulator) answers 40125.
const REFUSED_APP_ID = 'wxacceptance0003';

let world: World;
beforeAll(async () => {
  const accounts = [anAccount(), anAccount({ appId: QUOTA_APP_ID }), anAccount({ appId: REFUSED_APP_ID })];
  world = await startWorld({
    name: 'alert-signals',
    accounts: accounts.map((a) => (a.appId === REFUSED_APP_ID ? { ...a, secret: 'not-the-secret' } : a)),
    simEnv: { WECHAT_ACCOUNTS: JSON.stringify(accounts) },
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);
afterEach(() => world.sim.clearFaults());

/** The value of one series on the service's /metrics (name and labels as printed), or undefined. */
const metric = (series: string) => metricValue(world.opsUrl, series);

describe('Operating it: the signals the alerts read', () => {
  it('a healthy process reads Postgres and RabbitMQ as up, and no account as paused', async () => {
    expect(await metric('wechat_drip_postgres_up')).toBe(1);
    expect(await metric('wechat_drip_broker_connected')).toBe(1);
    const { text } = await call(`${world.opsUrl}/metrics`);
    expect(text).not.toMatch(/^wechat_drip_account_paused\{/m);
  });

  it('45009 shows its account paused, with the reason errcode:45009 (AccountQuotaReached)', async () => {
    await world.sim.setFaults({ forceErrcode: 45009, count: 1 });
    await world.api.schedule(aMessageRequest({ appId: QUOTA_APP_ID }));
    await waitFor(
      async () =>
        (await metric(`wechat_drip_account_paused{app_id="${QUOTA_APP_ID}",reason="errcode:45009"}`)) === 1,
      'the quota account to show as paused on /metrics',
    );
  });

  it('a refused AppSecret shows its account paused (token_error) and its token refreshes failing', async () => {
    const created = await world.api.schedule(aMessageRequest({ appId: REFUSED_APP_ID }));
    await waitFor(
      async () =>
        (await metric(`wechat_drip_account_paused{app_id="${REFUSED_APP_ID}",reason="token_error"}`)) === 1,
      'the refused account to show as paused on /metrics',
    );
    expect(
      await metric(`wechat_drip_token_refreshes_total{app_id="${REFUSED_APP_ID}",outcome="error"}`),
    ).toBeGreaterThanOrEqual(1);
    // Held, not failed: nothing reached the follower, and the message waits for the fix.
    expect((await world.api.message(created.id)).status).toBe('queued');
    expect(await world.sim.messages(created.openid!)).toEqual([]);
  });
});
