import { aMessageRequest } from './support/builders';
import { untilStatus } from './support/expectations';
import { createSimulatorClient } from './support/simulator-client';
import { waitFor } from './support/wait-for';
import { anAccount, startWorld, type World } from './support/world';

// A second account for 45009, which pauses its account for the rest of the day.
const QUOTA_APP_ID = 'wxacceptance0002';

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'wechat-errors',
    accounts: [anAccount(), anAccount({ appId: QUOTA_APP_ID })],
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);
afterEach(() => world.sim.clearFaults());

/** The next 00:00 China time (UTC+8), when WeChat's daily quota resets. */
function nextChinaMidnight(now: number): number {
  const day = 86_400_000;
  const offset = 8 * 3_600_000;
  return Math.floor((now + offset) / day) * day + day - offset;
}

// Each test sends one message at a time: a fault with `count` applies to the next sends, whoever's.
describe('Guarantees, and how they are kept: WeChat errors', () => {
  it.each([45015, 45047])(
    '%i (window closed) makes the message skipped with reason window_closed',
    async (errcode) => {
      await world.sim.setFaults({ forceErrcode: errcode, count: 1 });
      const created = await world.api.schedule(aMessageRequest());
      const skipped = await untilStatus(world.api, created.id, 'skipped');
      expect(skipped.statusReason).toBe('window_closed');
      expect(await world.sim.messages(created.openid!)).toEqual([]);
    },
  );

  it('-1 (system busy) is retried, then the message is sent once', async () => {
    await world.sim.setFaults({ forceErrcode: -1, count: 2 });
    const created = await world.api.schedule(aMessageRequest());
    const sent = await untilStatus(world.api, created.id, 'sent');
    expect(sent.attempts).toBe(3);
    expect(await world.sim.messages(created.openid!)).toHaveLength(1);
  });

  it('40001 (token invalid) refreshes the token and the message is sent once', async () => {
    await world.api.schedule(aMessageRequest()).then((m) => untilStatus(world.api, m.id, 'sent'));
    const tokenRequests = async () => {
      const { requests } = (await world.sim.stats()).tokens;
      return requests.stable + requests.classic;
    };
    const requestsBefore = await tokenRequests();
    await world.sim.setFaults({ forceErrcode: 40001, count: 1 });
    const created = await world.api.schedule(aMessageRequest());
    await untilStatus(world.api, created.id, 'sent');
    expect(await world.sim.messages(created.openid!)).toHaveLength(1);
    // One token request after the 40001: the refresh (normal-mode stable_token may hand back the same token).
    expect(await tokenRequests()).toBe(requestsBefore + 1);
  });

  it('45009 (daily quota) pauses the account until 00:00 China time: this and later messages are held, not failed', async () => {
    const quotaSim = createSimulatorClient(world.sim.url, QUOTA_APP_ID);
    await world.sim.setFaults({ forceErrcode: 45009, count: 1 });
    const first = await world.api.schedule(aMessageRequest({ appId: QUOTA_APP_ID }));
    const midnight = nextChinaMidnight(Date.now());
    const held = await waitFor(async () => {
      const m = await world.api.message(first.id);
      return Date.parse(m.dueAt) === midnight ? m : undefined;
    }, 'the first message to be held until 00:00 China time');
    expect(held.status).not.toBe('failed');

    const later = await world.api.schedule(aMessageRequest({ appId: QUOTA_APP_ID }));
    const heldLater = await waitFor(async () => {
      const m = await world.api.message(later.id);
      return Date.parse(m.dueAt) === midnight ? m : undefined;
    }, 'the later message to be held until 00:00 China time');
    expect(heldLater.status).toBe('queued');
    expect(await quotaSim.messages()).toEqual([]);
    // The other account is not paused.
    const other = await world.api.schedule(aMessageRequest());
    await untilStatus(world.api, other.id, 'sent');
  });
});
