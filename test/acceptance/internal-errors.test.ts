import { readFileSync } from 'node:fs';
import { call } from './support/http';
import { waitFor } from './support/wait-for';
import { startWorld, type World } from './support/world';

// docs/api.md "HTTP API": a 5xx says nothing of what failed inside — a 503 keeps its code, with a fixed
// message, Retry-After and the request id — and a refusal the admin must act on is a 4xx that says why.
// This world's service holds a component AppSecret the simulated Open Platform does not know (40125), and
// no component ticket has come yet (the Open Platform pushes one every hour here, and on demand).
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
    simEnv: {
      ...PLATFORM,
      WECHAT_COMPONENT_SECRET: 'wechat-knows-another',
      SIM_TICKET_INTERVAL_MS: '3600000',
    },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const startAuthorization = (requestId: string) =>
  world.api('/v1/platform/authorizations', {
    json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
    headers: { 'x-request-id': requestId },
  });

describe('HTTP API', () => {
  it('a 503 keeps its code with a fixed message, Retry-After and the request id; the detail is in the log', async () => {
    const res = await startAuthorization('acceptance-unavailable-1');

    expect(res.status).toBe(503);
    expect(res.headers.get('x-request-id')).toBe('acceptance-unavailable-1');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({
      error: {
        code: 'token_error',
        message: 'temporarily unavailable; try again shortly',
        requestId: 'acceptance-unavailable-1',
      },
    });
    await waitFor(
      () => world.logFiles().some((f) => readFileSync(f, 'utf8').includes('component_verify_ticket')),
      'the detail (no component_verify_ticket yet) in the service log',
    );
  });

  it('WeChat refusing for good (a wrong component AppSecret) is a 409 that names its errcode', async () => {
    const pushed = await call<{ status: number }>(`${world.sim.url}/__sim/component/ticket`, {
      method: 'POST',
    });
    expect(pushed.body.status).toBe(200);

    const res = await startAuthorization('acceptance-refused-1');

    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'wechat_refused', details: { errcode: 40125 } });
  });
});
