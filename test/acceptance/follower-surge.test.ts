import { anOpenid, aSequence, aStep, aTextMessage } from './support/builders';
import type { SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, startWorld, type World } from './support/world';

// docs/webhook.md "Follow → drip: the webhook, contact windows and sequences": a surge of follows (a viral QR
// code) is answered in time, and every follower gets the welcome step once.
const FOLLOWERS = 200;
const IN_FLIGHT = 50;
const WELCOME = 'surge welcome';
const rule = (count: number, windowMs: number) => ({ count, windowMs });
const POLICY = {
  message: rule(5, 60_000),
  subscribe: rule(3, 60_000),
  scan: rule(3, 60_000),
  click: rule(3, 60_000),
};

let world: World;
let sequence: SequenceView;
beforeAll(async () => {
  world = await startWorld({
    name: 'follower-surge',
    accounts: [anAccount({ windowPolicy: POLICY })],
    split: true,
  });
  const res = await world.api('/v1/sequences', {
    json: aSequence({ steps: [aStep({ offsetMs: 1000, message: aTextMessage(WELCOME) })] }),
  });
  expect(`${res.status} ${res.text.slice(0, 300)}`).toMatch(/^201 /);
  sequence = res.body as SequenceView;
  expect(sequence.status).toBe('active');
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('Follow → drip: a follower surge', () => {
  it(`${FOLLOWERS} followers following at once (${IN_FLIGHT} pushes in flight) are each answered success in time and get step 1 exactly once`, async () => {
    const openids = Array.from({ length: FOLLOWERS }, () => anOpenid('surge'));
    const answers: { status: number; body: string; ms: number }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < openids.length) answers.push(...(await world.sim.follow(openids[next++])).pushes);
      }),
    );
    expect(answers).toHaveLength(FOLLOWERS);
    expect(answers.filter((a) => a.status !== 200 || a.body !== 'success')).toEqual([]);
    // WeChat gives up on an answer after 5 s and retries.
    expect(answers.filter((a) => a.ms >= 5000)).toEqual([]);

    const ours = new Set(openids);
    const welcomes = async () =>
      (await world.sim.messages()).filter(
        (m) => ours.has(m.openid) && m.msgtype === 'text' && m.body.text.content === WELCOME,
      );
    await waitFor(
      async () => new Set((await welcomes()).map((m) => m.openid)).size === FOLLOWERS,
      `every one of the ${FOLLOWERS} followers to receive "${WELCOME}"`,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // Once every step-1 row is final (sent), the service has nothing left that could send a second copy.
    await waitFor(
      async () => {
        const results = (await world.api(`/v1/sequences/${sequence.id}/results`)).body;
        const step = results.steps?.[0];
        return results.enrolled === FOLLOWERS && step?.scheduled === FOLLOWERS && step.sent === FOLLOWERS;
      },
      `the sequence's results to show ${FOLLOWERS} enrolled and ${FOLLOWERS} step-1 messages sent`,
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const perFollower = new Map<string, number>();
    for (const m of await welcomes()) perFollower.set(m.openid, (perFollower.get(m.openid) ?? 0) + 1);
    expect([...perFollower.values()].filter((n) => n !== 1)).toEqual([]);
    expect(perFollower.size).toBe(FOLLOWERS);
  }, 120_000);
});
