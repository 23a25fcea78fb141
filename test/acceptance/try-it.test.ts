import { envExample } from './support/env-example';
import { call } from './support/http';
import type { Account } from './support/types';
import { waitFor } from './support/wait-for';
import { ACCOUNTS_ENCRYPTION_KEY, startWorld, type World } from './support/world';

// README "The two commands" → "Try it": the service configured exactly like .env.example (the demo
// account, safe push mode, the official window policy); only ports, database and broker prefix differ.
const example = envExample();
const accounts = JSON.parse(example.WECHAT_ACCOUNTS) as Account[];
const DEMO_APP_ID = 'wxdemo0000000001';

let world: World;
beforeAll(async () => {
  // `make run` fills the empty ACCOUNTS_ENCRYPTION_KEY of .env.example with a fresh key.
  // The simulator reads the demo platform's four WECHAT_COMPONENT_* from the same .env.
  const platform = Object.fromEntries(
    Object.entries(example).filter(
      ([name]) => name.startsWith('WECHAT_COMPONENT_') && !name.endsWith('_URL'),
    ),
  );
  world = await startWorld({
    name: 'try-it',
    accounts,
    baseEnv: example,
    env: { ACCOUNTS_ENCRYPTION_KEY },
    simEnv: platform,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('The two commands: Try it', () => {
  it('.env.example configures the demo account in safe mode with the official window policy', () => {
    expect(accounts).toEqual([
      expect.objectContaining({ appId: DEMO_APP_ID, pushMode: 'safe', windowPolicy: 'official' }),
    ]);
  });

  it('.env.example configures the demo third-party platform, which the simulator plays: an account connects through it', async () => {
    expect(await world.api('/v1/platform')).toMatchObject({ status: 200, body: { configured: true } });
    // scripts/run-local.sh pushes the first ticket once the service is up, as here.
    expect((await call(`${world.sim.url}/__sim/component/ticket`, { method: 'POST' })).body).toMatchObject({
      status: 200,
      body: 'success',
    });
    const started = await world.api('/v1/platform/authorizations', {
      json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
    });
    expect(started.status).toBe(201);
    const page = new URL(started.body.authorizationUrl as string);
    page.searchParams.set('sim_appid', 'wxdemoconnected01');
    const consented = await fetch(page, { redirect: 'manual' });
    const callback = await call(consented.headers.get('location')!);
    expect(callback.body).toMatchObject({ appId: 'wxdemoconnected01', outcome: 'created' });
  });

  it('after o-demo writes in, the message scheduled with delayMs 5000 is in the simulator record within ~6 s', async () => {
    // 1) the follower writes in, which opens a 48 h contact window
    const push = await world.sim.message('o-demo', '你好');
    expect(push.pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);

    // 2) the README's POST /v1/messages
    const scheduledAt = Date.now();
    const res = await world.api('/v1/messages', {
      json: {
        appId: DEMO_APP_ID,
        openid: 'o-demo',
        delayMs: 5000,
        message: { msgtype: 'text', text: { content: '欢迎关注！' } },
      },
    });
    expect(res.status).toBe(201);

    // 3) sleep 6; curl -s localhost:4100/__sim/messages
    const [received] = await waitFor(
      async () => {
        const messages = await world.sim.messages('o-demo');
        return messages.length > 0 ? messages : undefined;
      },
      'the welcome message in the simulator record',
      { timeoutMs: 6000 },
    );
    expect(received).toMatchObject({
      appId: DEMO_APP_ID,
      openid: 'o-demo',
      channel: 'custom',
      body: { touser: 'o-demo', msgtype: 'text', text: { content: '欢迎关注！' } },
    });
    expect(received.receivedAt - scheduledAt).toBeGreaterThanOrEqual(5000);
    expect(received.receivedAt - scheduledAt).toBeLessThan(6000);
  }, 20_000);
});
