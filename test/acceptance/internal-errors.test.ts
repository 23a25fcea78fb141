import { call } from './support/http';
import { waitFor } from './support/wait-for';
import { startWorld, type World } from './support/world';

// docs/api.md "HTTP API": a 5xx says `internal` (or a 503's code) and the request id, nothing of what
// failed inside. Hostile input never gets one; this world forces one: the service holds a component
// AppSecret the simulated Open Platform does not know, so minting a pre-auth code fails for good (40125).
const PLATFORM = {
  WECHAT_COMPONENT_APP_ID: 'wxcomponentbroken1',
  WECHAT_COMPONENT_TOKEN: 'brokencomponenttoken',
  WECHAT_COMPONENT_ENCODING_AES_KEY: 'BrokenComponentAESKey0123456789abcdefghijkl',
};
let world: World;

beforeAll(async () => {
  world = await startWorld({
    name: 'internal-errors',
    env: { ...PLATFORM, WECHAT_COMPONENT_SECRET: 'the-service-holds-this-one' },
    simEnv: { ...PLATFORM, WECHAT_COMPONENT_SECRET: 'wechat-knows-another', SIM_TICKET_INTERVAL_MS: '500' },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('HTTP API', () => {
  it('a 500 answers only `internal` and the request id (the X-Request-Id header); the detail is in the log', async () => {
    await waitFor(async () => {
      const { pushes } = (
        await call<{ pushes: { status: number }[] }>(`${world.sim.url}/__sim/component/pushes`)
      ).body;
      return pushes.some((p) => p.status === 200);
    }, 'a component ticket stored');

    const res = await world.api('/v1/platform/authorizations', {
      json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
      headers: { 'x-request-id': 'acceptance-internal-1' },
    });

    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('acceptance-internal-1');
    expect(res.body).toEqual({
      error: { code: 'internal', message: 'internal error', requestId: 'acceptance-internal-1' },
    });
  });
});
