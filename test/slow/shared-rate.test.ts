import { aMessageRequest, aTemplateMessage, anOpenid } from '../acceptance/support/builders';
import { waitFor } from '../acceptance/support/wait-for';
import { anAccount, startWorld, type World } from '../acceptance/support/world';

/**
 * Issue 14's measurement: 4 worker processes sharing one account limited to 200/s send at 200/s ± 5 %,
 * counted from the simulator's record over RATE_CHECK_SECONDS (10 here; 30 for the figure in the notes).
 */
const RATE = 200;
const WORKERS = 4;
const SECONDS = Number(process.env.RATE_CHECK_SECONDS ?? 10);
const MESSAGES = RATE * (SECONDS + 3);

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'shared-rate',
    split: true,
    workers: WORKERS,
    accounts: [anAccount({ sendRatePerSecond: RATE })],
    env: { LOG_LEVEL: 'warn' },
  });
}, 120_000);
afterAll(() => world?.close(), 60_000);

it(`${WORKERS} workers sharing one account at ${RATE}/s send at ${RATE}/s ± 5 % over ${SECONDS} s`, async () => {
  const openid = anOpenid();
  const lines = Array.from({ length: MESSAGES }, () =>
    aMessageRequest({ openid, channel: 'template', message: aTemplateMessage() }),
  );
  for (let i = 0; i < lines.length; i += 2000) await world.api.batch(lines.slice(i, i + 2000));

  await waitFor(async () => (await world.sim.messages(openid)).length >= MESSAGES, 'every message sent', {
    timeoutMs: (SECONDS + 30) * 1000,
    intervalMs: 1000,
  });
  const received = (await world.sim.messages(openid)).map((m) => m.receivedAt).sort((a, b) => a - b);
  const from = received[0];
  const inWindow = received.filter((t) => t < from + SECONDS * 1000).length;
  const rate = inWindow / SECONDS;
  const overall = (received.length - 1) / ((received.at(-1)! - from) / 1000);
  console.info(
    `shared-rate: ${WORKERS} workers sent ${inWindow} in the first ${SECONDS} s = ${rate.toFixed(1)}/s ` +
      `(limit ${RATE}/s); all ${received.length} at ${overall.toFixed(1)}/s`,
  );
  expect(received).toHaveLength(MESSAGES);
  expect(rate).toBeLessThanOrEqual(RATE * 1.05);
  expect(rate).toBeGreaterThanOrEqual(RATE * 0.95);
}, 180_000);
