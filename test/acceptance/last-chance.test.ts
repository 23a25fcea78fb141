import { anOpenid, aSequence, aStep, aTextMessage, aWindowPolicy } from './support/builders';
import { expectRejected, untilReceived } from './support/expectations';
import type { SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, startWorld, type World } from './support/world';

// docs/sequences.md "The window's last chance": a user message opens 5 messages within 20 s here; the
// last-chance step goes out 15 s before that window closes — 5 s after the message that opened it.
const WINDOW_MS = 20_000;
const LEAD_MS = 15_000;
const POLICY = aWindowPolicy({ message: { count: 5, windowMs: WINDOW_MS } });

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'last-chance', accounts: [anAccount({ windowPolicy: POLICY })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** Writing `keyword` → "<keyword>: hello" now, "<keyword>: last" 15 s before the 20 s window closes. */
const aLastChance = (keyword: string) =>
  aSequence({
    trigger: { type: 'keyword', keyword },
    steps: [
      aStep({ message: aTextMessage(`${keyword}: hello`) }),
      { beforeWindowCloseMs: LEAD_MS, message: aTextMessage(`${keyword}: last`) },
    ],
  });

interface StepResults {
  stepIndex: number;
  scheduled: number;
  sent: number;
  lastChance?: { moved: number; recovered: number };
}
const lastStep = async (id: string): Promise<StepResults> =>
  ((await world.api(`/v1/sequences/${id}/results`)).body as { steps: StepResults[] }).steps[1];
const receivedAt = async (openid: string, content: string): Promise<number[]> =>
  (await world.sim.messages(openid)).filter((m) => m.body.text?.content === content).map((m) => m.receivedAt);

describe("The window's last chance", () => {
  it('goes out before the window closes, once — and a new message moves it to the new window', async () => {
    const sequence = await world.api.createSequence(aLastChance('lastcall'));
    const openid = anOpenid('lastcall');
    const first = Date.now();
    await world.sim.message(openid, 'lastcall 课程');
    await untilReceived(world.sim, openid, 'lastcall: hello');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const second = Date.now();
    await world.sim.message(openid, '还有一个问题');
    await untilReceived(world.sim, openid, 'lastcall: last', 25_000);
    const [last] = await receivedAt(openid, 'lastcall: last');
    // Due 5 s after the second message (not the first), and before the window that message opened closes.
    expect(last - second).toBeGreaterThanOrEqual(WINDOW_MS - LEAD_MS - 50);
    expect(last - second).toBeLessThan(WINDOW_MS);
    expect(last - first).toBeGreaterThan(WINDOW_MS - LEAD_MS + 1500);
    const step = await lastStep(sequence.id);
    expect([step.scheduled, step.sent, step.lastChance]).toEqual([1, 1, { moved: 1, recovered: 0 }]);

    // Writing after it went out is what it was for: counted as recovered; nothing is sent again.
    await world.sim.message(openid, '好的，我报名');
    await waitFor(async () => (await lastStep(sequence.id)).lastChance?.recovered === 1, 'the recovery', {
      timeoutMs: 10_000,
    });
    expect(await world.sim.texts(openid)).toEqual(['lastcall: hello', 'lastcall: last']);
  });

  it('without a new message, goes out the lead before the first window closes', async () => {
    await world.api.createSequence(aLastChance('onecall'));
    const openid = anOpenid('onecall');
    const wrote = Date.now();
    await world.sim.message(openid, 'onecall');
    await untilReceived(world.sim, openid, 'onecall: last', 25_000);
    const [last] = await receivedAt(openid, 'onecall: last');
    expect(last - wrote).toBeGreaterThanOrEqual(WINDOW_MS - LEAD_MS - 50);
    expect(last - wrote).toBeLessThan(WINDOW_MS);
  });

  it('refuses a last-chance step with no window to refer to, naming the field; nothing is written', async () => {
    const before = (await world.api('/v1/sequences')).body as { sequences: SequenceView[] };
    const api = { ...aLastChance('nowindow'), trigger: { type: 'api' } };
    expectRejected(await world.api('/v1/sequences', { json: api }), 'steps.1.beforeWindowCloseMs', 400);
    // A follow's window lasts a minute: two minutes before it closes is before it opens.
    const follow = aSequence({
      trigger: { type: 'subscribe' },
      steps: [{ beforeWindowCloseMs: 120_000, message: aTextMessage('too early') }],
    });
    expectRejected(await world.api('/v1/sequences', { json: follow }), 'steps.0.beforeWindowCloseMs', 400);
    const after = (await world.api('/v1/sequences')).body as { sequences: SequenceView[] };
    expect(after.sequences.length).toBe(before.sequences.length);
  });
});
