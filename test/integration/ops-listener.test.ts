/**
 * The ops listener (OPS_HOST:OPS_PORT) carries /metrics and the detailed readiness; the public port, which
 * faces the internet for the webhook, says only whether the process is ready.
 */
import type { Service } from '../../src/main/start-service';
import { API_READINESS_CHECKS, createHarness, freePort, type Harness, waitFor } from '../helpers/harness';

let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api' });
  api = await h.start();
}, 60_000);
afterAll(() => h.close());

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
};

describe('the public port', () => {
  it('answers /readyz with {"ready":true} and nothing else: no versions, no check list', async () => {
    expect(await waitFor(async () => (await get(`${api.url}/readyz`)).status === 200, 5000)).toBe(true);
    expect(await get(`${api.url}/readyz`)).toEqual({ status: 200, text: '{"ready":true}' });
    expect(await get(`${api.url}/healthz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
  });

  it('answers /metrics with 404', async () => {
    const res = await get(`${api.url}/metrics`);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('wechat_drip_');
  });

  it('when Postgres is unreachable, answers 503 {"ready":false} without the error text', async () => {
    const url = new URL(h.env.DATABASE_URL);
    url.port = String(await freePort()); // nothing listens there
    const broken = await h.start({ DATABASE_URL: url.toString(), HTTP_PORT: '0' });
    expect(await get(`${broken.url}/readyz`)).toEqual({ status: 503, text: '{"ready":false}' });
    const detailed = await fetch(`${broken.opsUrl}/readyz`);
    expect(detailed.status).toBe(503);
    expect(await detailed.json()).toMatchObject({
      ready: false,
      checks: { postgres: { ok: false, detail: expect.stringMatching(/ECONNREFUSED/) } },
    });
    // The API says the database is unavailable (retry later), not that it failed: 503, not 500.
    const res = await h.api(broken, '/v1/messages/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({
      error: {
        code: 'database_unavailable',
        message: 'temporarily unavailable; try again shortly',
        requestId: res.headers.get('x-request-id'),
      },
    });
  });
});

describe('the ops listener', () => {
  it('answers the detailed /readyz: Postgres, migrations, RabbitMQ, the accounts, the API keys and the transport', async () => {
    const res = await fetch(`${api.opsUrl}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ready: boolean; checks: Record<string, { detail?: string }> };
    expect(body.ready).toBe(true);
    expect(Object.keys(body.checks)).toEqual(API_READINESS_CHECKS);
    expect(body.checks.transport.detail).toMatch(/^levels/);
  });

  it('answers /healthz and /metrics, and 404 JSON for anything else (not the API)', async () => {
    expect(await get(`${api.opsUrl}/healthz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
    expect((await get(`${api.opsUrl}/metrics`)).text).toContain('wechat_drip_messages_scheduled_total');
    const other = await get(`${api.opsUrl}/v1/messages`);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('binds loopback unless OPS_HOST says otherwise', () => {
    expect(new URL(api.opsUrl).hostname).toBe('127.0.0.1');
  });
});
