/**
 * docs/guarantees.md "Delay transports: which one": a wait longer than the transport holds in one go is
 * clamped to its maximum, and the wake-up that comes early is re-delayed for the rest — so the message
 * still goes out once, at its due time, never before. Seen from the outside: the simulator's record, the
 * API's `sentAt`, /readyz's transport, and the re-delays the service counts on /metrics (reason="early").
 * Levels: 6 levels of 10 ms hold at most 630 ms. Plugin (when a broker with the delayed-message plugin is
 * given, as `make test` does): PLUGIN_MAX_DELAY_MS=1000.
 */
import { PLUGIN_RABBITMQ_URL } from './support/broker';
import { anOpenid, aMessageRequest, aTextMessage } from './support/builders';
import { untilReceived, untilStatus } from './support/expectations';
import { call } from './support/http';
import { metricSum } from './support/metrics';
import { startWorld, type World } from './support/world';

/** Waits of `delayMs` on `world` arrive once, on time, after at least `hops` re-delays. */
async function expectChainedOnTime(world: World, delayMs: number, hops: number): Promise<void> {
  const openid = anOpenid();
  const early = () => metricSum(world.opsUrl, 'wechat_drip_wakeups_published_total', 'reason', 'early');
  const before = await early();
  const m = await world.api.schedule(aMessageRequest({ openid, delayMs, message: aTextMessage('far') }));
  await untilReceived(world.sim, openid, 'far', delayMs + 15_000);
  const sent = await untilStatus(world.api, m.id, 'sent');
  const lateMs = Date.parse(sent.sentAt!) - Date.parse(m.dueAt);
  expect(lateMs).toBeGreaterThanOrEqual(-50);
  expect(lateMs).toBeLessThan(2000);
  expect(await world.sim.texts(openid)).toEqual(['far']);
  expect((await early()) - before).toBeGreaterThanOrEqual(hops);
}

/** The transport /readyz names, e.g. "levels (DELAY_MODE=levels)". */
async function transportOf(world: World): Promise<string> {
  const ready = await call<{ checks: Record<string, { detail?: string }> }>(`${world.opsUrl}/readyz`);
  return ready.body.checks.transport.detail ?? '';
}

if (!PLUGIN_RABBITMQ_URL) {
  console.info('plugin-mode acceptance test skipped: set RABBITMQ_PLUGIN_URL to a broker with the plugin');
}

describe('Delay transports: which one', () => {
  describe('levels mode: a wait longer than the levels hold', () => {
    let world: World;
    beforeAll(async () => {
      world = await startWorld({
        name: 'delay-limits-levels',
        env: { DELAY_MODE: 'levels', LEVELS_COUNT: '6' },
        enforceWindow: false,
      });
    }, 60_000);
    afterAll(() => world?.close(), 30_000);

    it('is clamped to 630 ms a hop and re-delayed until due: sent once, on time', async () => {
      expect(await transportOf(world)).toMatch(/^levels/);
      await expectChainedOnTime(world, 2500, 3);
    }, 40_000);
  });

  (PLUGIN_RABBITMQ_URL ? describe : describe.skip)(
    'a wait longer than PLUGIN_MAX_DELAY_MS (plugin mode)',
    () => {
      let world: World;
      beforeAll(async () => {
        world = await startWorld({
          name: 'delay-limits-plugin',
          rabbitmqUrl: PLUGIN_RABBITMQ_URL,
          env: { DELAY_MODE: 'auto', PLUGIN_MAX_DELAY_MS: '1000' },
          enforceWindow: false,
        });
      }, 60_000);
      afterAll(() => world?.close(), 30_000);

      it('is found by DELAY_MODE=auto, clamped to 1 s a hop and re-delayed until due: sent once, on time', async () => {
        expect(await transportOf(world)).toMatch(/^plugin/);
        await expectChainedOnTime(world, 3000, 2);
      }, 40_000);
    },
  );
});
