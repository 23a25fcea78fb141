/**
 * docs/guarantees.md "The publishing horizon": a message due beyond PUBLISH_HORIZON is only a row until a
 * worker's horizon pump publishes its wake-up, and it still goes out on time; one cancelled before it
 * comes within the horizon never costs the broker a wake-up. Seen from the outside: the simulator's
 * record, the API, and the wake-ups the service counts on /metrics by reason (`schedule` at once, `pump`
 * later) — with a 2 s horizon so that a test can wait it out.
 */
import { anOpenid, aMessageRequest, aTextMessage } from './support/builders';
import { untilReceived, untilStatus } from './support/expectations';
import { metricSum, metricValue } from './support/metrics';
import { startWorld, type World } from './support/world';

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'publishing-horizon',
    env: { PUBLISH_HORIZON: '2s', RELAY_INTERVAL_MS: '200' },
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** The wake-ups published for one reason, summed over transports (0 when none). */
const published = (reason: string) =>
  metricSum(world.opsUrl, 'wechat_drip_wakeups_published_total', 'reason', reason);

describe('The publishing horizon', () => {
  it('a message due beyond it is published by the pump as it comes within it, and goes out on time', async () => {
    const openid = anOpenid();
    const [scheduleBefore, pumpBefore] = [await published('schedule'), await published('pump')];
    const near = await world.api.schedule(
      aMessageRequest({ openid, delayMs: 500, message: aTextMessage('near') }),
    );
    const far = await world.api.schedule(
      aMessageRequest({ openid, delayMs: 6000, message: aTextMessage('far') }),
    );

    // The near one's wake-up went out with the schedule; the far one's did not.
    await untilReceived(world.sim, openid, 'near');
    expect(await published('schedule')).toBe(scheduleBefore + 1);
    expect(await published('pump')).toBe(pumpBefore);

    await untilReceived(world.sim, openid, 'far');
    const sent = await untilStatus(world.api, far.id, 'sent');
    expect(Date.parse(sent.sentAt!)).toBeGreaterThanOrEqual(Date.parse(far.dueAt) - 50);
    expect(Date.parse(sent.sentAt!) - Date.parse(far.dueAt)).toBeLessThan(2000);
    expect(await published('pump')).toBe(pumpBefore + 1);
    expect(await published('schedule')).toBe(scheduleBefore + 1);
    expect(await metricValue(world.opsUrl, 'wechat_drip_horizon_pump_lag_seconds')).toBe(0);
    expect((await world.api.message(near.id)).status).toBe('sent');
  }, 30_000);

  it('a message cancelled while beyond it never gets a wake-up, and never arrives', async () => {
    const openid = anOpenid();
    const pumpBefore = await published('pump');
    const far = await world.api.schedule(
      aMessageRequest({ openid, delayMs: 4000, message: aTextMessage('gone') }),
    );
    const res = await world.api('/v1/cancellations', { json: { ids: [far.id], reason: 'changed my mind' } });
    expect(res.status).toBe(200);

    // A later message to the same follower is the marker that the worker got past the cancelled one's due time.
    await world.api.schedule(aMessageRequest({ openid, delayMs: 5000, message: aTextMessage('marker') }));
    await untilReceived(world.sim, openid, 'marker');
    expect(await world.sim.texts(openid)).toEqual(['marker']);
    expect((await world.api.message(far.id)).status).toBe('cancelled');
    // Only the marker came through the pump.
    expect(await published('pump')).toBe(pumpBefore + 1);
  }, 30_000);
});
