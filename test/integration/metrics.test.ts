import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Service } from '../../src/main/start-service';
import { createHarness, freePort, type Harness, waitFor } from '../helpers/harness';
import { aMessageRequest, aTextMessage } from '../helpers/builders';

const run = promisify(execFile);

/** `promtool check metrics` reads the exposition text on stdin and fails on any problem it finds. */
async function promtoolCheck(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('promtool', ['check', 'metrics'], (err, stdout, stderr) =>
      err ? reject(new Error(`${stdout}${stderr}`)) : resolve(`${stdout}${stderr}`),
    );
    child.stdin!.end(text);
  });
}

let h: Harness;
let api: Service;

beforeAll(async () => {
  await run('bash', ['scripts/ensure-promtool.sh'], { timeout: 240_000 });
  h = await createHarness();
  api = await h.start();
}, 300_000);
afterAll(() => h.close());

const metric = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);

describe('/metrics', () => {
  it('counts what the service does and passes promtool check metrics (api + worker in one process, ops listener)', async () => {
    const res = await h.api(api, '/v1/messages', {
      method: 'POST',
      body: JSON.stringify(
        aMessageRequest({
          openid: 'o-m',
          message: aTextMessage('hi'),
        }),
      ),
    });
    expect(res.status).toBe(201);
    await waitFor(() => h.simulator.messages().length === 1, 5000);
    let text = '';
    await waitFor(async () => {
      text = await (await fetch(`${api.opsUrl}/metrics`)).text();
      return metric(text, 'wechat_drip_messages_sent_total') === 1;
    }, 5000);
    expect(metric(text, 'wechat_drip_messages_scheduled_total')).toBe(1);
    expect(metric(text, 'wechat_drip_wakeups_published_total')).toBeGreaterThanOrEqual(1);
    expect(metric(text, 'wechat_drip_lateness_seconds_count')).toBe(1);
    // The worker's own share, from the wake-up in hand and due to WeChat's answer: a few ms here.
    expect(metric(text, 'wechat_drip_wakeup_to_answer_seconds_count')).toBe(1);
    expect(metric(text, 'wechat_drip_wakeup_to_answer_seconds_sum')).toBeGreaterThan(0);
    expect(metric(text, 'wechat_drip_wakeup_to_answer_seconds_sum')).toBeLessThan(1);
    expect(text).toContain('wechat_drip_transport_info{mode="levels"} 1');
    expect(text).toMatch(/wechat_drip_outbox_backlog_messages \d+/);
    expect(text).toMatch(/wechat_drip_outbox_oldest_age_seconds [\d.e-]+/);
    expect(text).toMatch(/wechat_drip_horizon_pump_lag_seconds 0\n/);
    expect(text).toContain('process_cpu_seconds_total');
    await expect(promtoolCheck(text)).resolves.toBeDefined();
  });

  it('is not served on the public port, which faces the internet for the webhook', async () => {
    const res = await fetch(`${api.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('wechat_drip_');
  });

  it('is served by a worker-only process on its ops listener, with health and readiness', async () => {
    const port = await freePort();
    const worker = await h.start({ ROLE: 'worker', OPS_PORT: String(port) });
    expect(worker.url).toBeNull();
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, 5000)).toBe(true);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('wechat_drip_wakeups_delivered_total');
    await expect(promtoolCheck(text)).resolves.toBeDefined();
  });

  it('lets an api and a worker process on one machine answer on different OPS_PORTs', async () => {
    const [apiOps, workerOps] = [await freePort(), await freePort()];
    const apiOnly = await h.start({ ROLE: 'api', HTTP_PORT: '0', OPS_PORT: String(apiOps) });
    const worker = await h.start({ ROLE: 'worker', OPS_PORT: String(workerOps) });
    expect([apiOnly.opsUrl, worker.opsUrl]).toEqual([
      `http://127.0.0.1:${apiOps}`,
      `http://127.0.0.1:${workerOps}`,
    ]);
    const [apiText, workerText] = await Promise.all(
      [apiOnly, worker].map(async (s) => (await fetch(`${s.opsUrl}/metrics`)).text()),
    );
    expect(apiText).toContain('wechat_drip_messages_scheduled_total');
    expect(workerText).toContain('wechat_drip_wakeups_delivered_total');
  });

  it('refuses to start a second process on an OPS_PORT already taken, naming the address', async () => {
    const port = new URL(api.opsUrl).port;
    await expect(h.start({ ROLE: 'worker', OPS_PORT: port })).rejects.toThrow(`EADDRINUSE`);
  });
});
