import { Agent, request } from 'undici';
import { aMessageRequest, anOpenid } from './support/builders';
import { call } from './support/http';
import { stopProgram } from './support/processes';
import type { MessageView } from './support/types';
import { waitFor } from './support/wait-for';
import { APP_ID, startWorld, type World } from './support/world';

let world: World;
/** HTTP_MAX_CONNECTIONS: small, so that one client's pool can fill it. */
const CAP = 40;
beforeAll(async () => {
  world = await startWorld({ name: 'operating-it', env: { HTTP_MAX_CONNECTIONS: String(CAP) } });
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('Operating it', () => {
  it('/healthz answers the process is alive and /readyz that it is ready', async () => {
    const health = await call(`${world.api.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await call(`${world.api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true });
  });

  it('SIGTERM lets the worker finish the batches it claimed: every message being sent is sent and recorded, then it exits 0', async () => {
    // WeChat answering slowly keeps the claimed messages in flight when the signal arrives.
    // On a loaded machine the five may be claimed in more than one batch, so the signal is sent
    // once every message is claimed and at least one is still waiting for WeChat's answer.
    await world.sim.setFaults({ latencyMs: 4000 });
    const openid = anOpenid();
    const messages = await Promise.all(
      Array.from({ length: 5 }, () => world.api.schedule(aMessageRequest({ openid }))),
    );
    await waitFor(async () => {
      const statuses = (await Promise.all(messages.map((m) => world.api.message(m.id)))).map((m) => m.status);
      return statuses.every((s) => s === 'sending' || s === 'sent') && statuses.includes('sending');
    }, 'all five messages to be claimed, some still in flight');

    const exit = await stopProgram(world.service(), 'SIGTERM', 30_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await world.sim.messages(openid)).toHaveLength(5);

    await world.sim.clearFaults();
    await world.startService();
    const after: MessageView[] = await Promise.all(messages.map((m) => world.api.message(m.id)));
    expect(after.map((m) => m.status)).toEqual(Array(5).fill('sent'));
  }, 60_000);

  it('HTTP limits: a backend whose pool keeps HTTP_MAX_CONNECTIONS idle keep-alive connections after a burst shuts out neither another backend nor WeChat', async () => {
    const status = async (dispatcher: Agent) => {
      const res = await request(`${world.api.url}/healthz`, { dispatcher });
      await res.body.text();
      return res.statusCode;
    };
    // Twice the cap at once: the pool opens a connection per request, keeps those the service took
    // (about 64 s, the service's Keep-Alive hint), and is told 503 on the others.
    const busyBackend = new Agent();
    const burst = await Promise.all(Array.from({ length: 2 * CAP }, () => status(busyBackend)));
    expect(burst.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(burst.filter((s) => s === 200).length).toBeGreaterThan(CAP / 2);

    const otherBackend = new Agent();
    expect(await status(otherBackend)).toBe(200);
    const openid = anOpenid();
    const follow = await world.sim.follow(openid);
    expect(follow.pushes.map((p) => [p.status, p.body])).toEqual([[200, 'success']]);
    await waitFor(
      async () => (await world.api.follower(APP_ID, openid)).follower !== null,
      'the follow to be recorded',
    );
    await Promise.all([busyBackend.close(), otherBackend.close()]);
  });
});
