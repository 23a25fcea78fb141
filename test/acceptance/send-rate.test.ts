import { aMessageRequest, aTemplateMessage, anOpenid } from './support/builders';
import { call } from './support/http';
import { waitFor } from './support/wait-for';
import { anAccount, startWorld, type World } from './support/world';

// docs/accounts-and-platform.md "One send rate per account for the whole deployment": three worker processes share one account
// limited to 15 sends a second. Were the limit per process, 150 messages would take 3.3 s; shared, 10 s.
const RATE = 15;
const MESSAGES = 150;
const WORKERS = 3;

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'send-rate',
    split: true,
    workers: WORKERS,
    accounts: [anAccount({ sendRatePerSecond: RATE })],
  });
}, 90_000);
afterAll(() => world?.close(), 30_000);

/** Template messages each worker process reports WeChat accepted (its own /metrics). */
async function sentBy(url: string): Promise<number> {
  const { text } = await call(`${url}/metrics`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith('wechat_drip_messages_sent_total{channel="template"}'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('One send rate per account for the whole deployment', () => {
  it(`${WORKERS} worker processes together send one account's ${MESSAGES} due messages at its ${RATE}/s`, async () => {
    const openid = anOpenid();
    const lines = Array.from({ length: MESSAGES }, () =>
      aMessageRequest({ openid, channel: 'template', message: aTemplateMessage() }),
    );
    const answers = await world.api.batch(lines);
    expect(answers.filter((a) => 'ok' in a && a.ok)).toHaveLength(MESSAGES);

    await waitFor(async () => (await world.sim.messages(openid)).length >= MESSAGES, 'every message sent', {
      timeoutMs: 40_000,
      intervalMs: 250,
    });
    const received = (await world.sim.messages(openid)).map((m) => m.receivedAt).sort((a, b) => a - b);
    expect(received).toHaveLength(MESSAGES);

    // At most the rate over any 2 s, plus the quarter-second burst an idle account may spend at once.
    const allowed = RATE * 2 + Math.ceil(RATE * 0.25) + 1;
    for (let i = 0; i < received.length; i++) {
      const within = received.filter((t) => t >= received[i] && t < received[i] + 2000).length;
      expect(within).toBeLessThanOrEqual(allowed);
    }
    const spanS = (received.at(-1)! - received[0]) / 1000;
    expect(spanS).toBeGreaterThanOrEqual((MESSAGES - RATE * 0.25 - 1) / RATE - 0.2);
    // Every worker process took its share: the limit is shared, not one process doing all the work.
    const perWorker = await Promise.all(world.workerUrls.map(sentBy));
    expect(perWorker.reduce((a, b) => a + b, 0)).toBe(MESSAGES);
    expect(perWorker.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('shows the day’s sends on the account', async () => {
    const account = await world.api(`/v1/accounts/${anAccount().appId}`);
    expect(account.status).toBe(200);
    expect(account.body.sentToday).toEqual({ custom: 0, template: MESSAGES });
  });
});
