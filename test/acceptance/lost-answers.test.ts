import { aMessageRequest, aTemplateMessage, aTextMessage } from './support/builders';
import { untilFinal } from './support/expectations';
import { waitFor } from './support/wait-for';
import { startWorld, type World } from './support/world';

/** The service stops waiting for WeChat's answer after this long; the simulator answers later. */
const WECHAT_TIMEOUT_MS = 500;
const SLOWER_THAN_TIMEOUT_MS = 2500;

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'lost-answers',
    env: { WECHAT_TIMEOUT_MS: String(WECHAT_TIMEOUT_MS) },
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);
afterEach(() => world.sim.clearFaults());

// Each test sends one message at a time: a fault applies to the next sends, whoever's.
describe('Guarantees, and how they are kept: a send whose answer is lost', () => {
  it('is not repeated: the follower receives the customer-service message once and it shows unknown', async () => {
    await world.sim.setFaults({ latencyMs: SLOWER_THAN_TIMEOUT_MS });
    const created = await world.api.schedule(aMessageRequest({ message: aTextMessage('only once') }));
    const final = await untilFinal(world.api, created.id, 30_000);
    expect(final).toMatchObject({ status: 'unknown', statusReason: 'answer_lost', attempts: 1 });
    expect(final.deliveryAttempts).toEqual([
      expect.objectContaining({ attempt: 1, errcode: null, outcome: 'unknown' }),
    ]);
    // The simulator, standing for WeChat, did send it: once, after the service had stopped waiting.
    await waitFor(
      async () => (await world.sim.texts(created.openid!)).length > 0,
      'the late send to reach the simulator',
    );
    expect(await world.sim.texts(created.openid!)).toEqual(['only once']);
  });

  it('is repeated for a template message, which WeChat de-duplicates: received once, sent', async () => {
    await world.sim.setFaults({ latencyMs: SLOWER_THAN_TIMEOUT_MS, count: 1 });
    const created = await world.api.schedule(
      aMessageRequest({ channel: 'template', message: aTemplateMessage('only once') }),
    );
    const final = await untilFinal(world.api, created.id, 30_000);
    expect(final).toMatchObject({ status: 'sent', attempts: 2 });
    expect(final.deliveryAttempts?.map((a) => a.outcome)).toEqual(['retry', 'sent']);
    expect(await world.sim.messages(created.openid!)).toHaveLength(1);
  });
});
