import {
  anOpenid,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
  aWindowPolicy,
} from './support/builders';
import { expectRejected, untilReceived } from './support/expectations';
import { metricSum } from './support/metrics';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/sequences.md "Quiet hours": a sequence step due inside its quiet hours (the sequence's own, or the account's
// default) goes out when they end — on its fallback if the contact window is closed by then, or is skipped
// `quiet_hours` at once when it has none. Reminders from the API are not affected. The account's zone is
// Asia/Shanghai; a menu click opens a window of 1 s here, so the window closes before quiet hours end.
const POLICY = aWindowPolicy({ click: { count: 3, windowMs: 1000 } });

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'quiet-hours', accounts: [anAccount({ windowPolicy: POLICY })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const ZONE = 'Asia/Shanghai';
const clock = new Intl.DateTimeFormat('en-GB', {
  timeZone: ZONE,
  hourCycle: 'h23',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
/**
 * Quiet hours from an hour ago until `endInMs` from now (HH:MM:SS in the account's zone), and the instant
 * they end (whole seconds, as the times are written).
 */
function quietUntil(endInMs: number): { quietHours: { start: string; end: string }; end: number } {
  const end = Math.floor((Date.now() + endInMs) / 1000) * 1000;
  return {
    quietHours: { start: clock.format(Date.now() - 3_600_000), end: clock.format(end) },
    end,
  };
}

/** The follower's step of `sequenceId`, once `ready` holds for it. */
const untilStep = (
  openid: string,
  sequenceId: string,
  ready: (m: Record<string, unknown>) => boolean,
  what: string,
) =>
  waitFor(
    async () =>
      (await world.api.follower(APP_ID, openid)).messages.find(
        (m) => m.sequenceId === sequenceId && ready(m),
      ),
    what,
  );

describe('Quiet hours', () => {
  it('refuses quiet hours of no span or a malformed time with a 400 naming the field, and writes nothing', async () => {
    for (const quietHours of [
      { start: '08:00', end: '08:00:00' },
      { start: '24:00', end: '08:00' },
      { start: '22:00' },
      { start: '8:00', end: '09:00' },
    ]) {
      expectRejected(
        await world.api(`/v1/accounts/${APP_ID}`, { method: 'PATCH', json: { quietHours } }),
        'quietHours',
        400,
      );
      expectRejected(
        await world.api('/v1/sequences', { json: aSequence({ quietHours: quietHours as never }) }),
        'quietHours',
        400,
      );
    }
    expect((await world.api(`/v1/accounts/${APP_ID}`)).body.quietHours).toBeNull();
    expect((await world.api(`/v1/sequences?appId=${APP_ID}`)).body.sequences).toEqual([]);

    // `false`: none for this sequence; absent: the account's default (null in answers).
    const off = await world.api.createSequence(
      aSequence({ trigger: { type: 'keyword', keyword: 'quiet-off' }, quietHours: false }),
    );
    expect((await world.api(`/v1/sequences/${off.id}`)).body.quietHours).toBe(false);
    const inherits = await world.api.createSequence(
      aSequence({ trigger: { type: 'keyword', keyword: 'quiet-inherit' } }),
    );
    expect((await world.api(`/v1/sequences/${inherits.id}`)).body.quietHours).toBeNull();
  });

  it('a step due inside quiet hours that end in 3 s is delivered at their end, not before', async () => {
    const { quietHours, end } = quietUntil(3000);
    const sequence = await world.api.createSequence(
      aSequence({
        trigger: { type: 'keyword', keyword: 'quiet-a' },
        quietHours,
        steps: [aStep({ message: aTextMessage('after quiet') })],
      }),
    );
    const openid = anOpenid();

    await world.sim.message(openid, 'quiet-a 静默时段测试');

    // Moved to their end, and queued until then.
    const moved = await untilStep(
      openid,
      sequence.id,
      (m) => m.dueAt === new Date(end).toISOString(),
      'the step to move to the end',
    );
    expect(moved).toMatchObject({ status: 'queued' });
    await untilReceived(world.sim, openid, 'after quiet');
    const [received] = await world.sim.messages(openid);
    expect(received.receivedAt).toBeGreaterThanOrEqual(end);
    // Its wake-up was re-delayed for the quiet hours (the metric's reason says why).
    expect(
      await metricSum(world.opsUrl, 'wechat_drip_wakeups_published_total', 'reason', 'quiet_hours'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('a step whose window closes before quiet hours end, without a fallback, is skipped quiet_hours at once (the save warned)', async () => {
    const { quietHours, end } = quietUntil(3_600_000);
    const created = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'click', key: 'QUIET_SKIP' },
        quietHours,
        steps: [aStep({ message: aTextMessage('never') })],
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([
      {
        path: 'steps.0',
        message: expect.stringContaining('quiet_hours'),
        rule: expect.objectContaining({ kind: 'quiet_hours_push', source: 'sequence', interaction: 'click' }),
      },
    ]);
    const openid = anOpenid();

    await world.sim.click(openid, 'QUIET_SKIP');

    const skipped = await untilStep(
      openid,
      created.body.id,
      (m) => m.status === 'skipped',
      'the step to be skipped',
    );
    expect(skipped).toMatchObject({ statusReason: 'quiet_hours' });
    expect(Date.now()).toBeLessThan(end);
    const results = await waitFor(async () => {
      const r = (await world.api(`/v1/sequences/${created.body.id}/results`)).body;
      return r.steps?.[0]?.skipped?.quiet_hours === 1 ? r : undefined;
    }, 'the results to count the skip');
    expect(results.steps[0]).toMatchObject({ sent: 0, skipped: { quiet_hours: 1 } });
    expect(await world.sim.messages(openid)).toEqual([]);
  });

  it('with a template fallback, the step goes out as the template message when quiet hours end', async () => {
    const { quietHours, end } = quietUntil(3000);
    const fallback = aTemplateMessage('after quiet hours');
    const created = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'click', key: 'QUIET_FALLBACK' },
        quietHours,
        steps: [aStep({ message: aTextMessage('not this'), fallback })],
      }),
    });
    expect(created.body.warnings).toEqual([]);
    const openid = anOpenid();

    await world.sim.click(openid, 'QUIET_FALLBACK');

    const sent = await waitFor(
      async () => (await world.sim.messages(openid)).find((m) => m.channel === 'template'),
      'the template message',
    );
    expect(sent.body).toMatchObject({ touser: openid, template_id: fallback.template_id });
    expect(sent.receivedAt).toBeGreaterThanOrEqual(end);
    expect(await world.sim.texts(openid)).toEqual([]);
  });

  it('the account’s default applies to sequences without their own; reminders from the API are not affected', async () => {
    const { quietHours, end } = quietUntil(3_600_000);
    const patched = await world.api(`/v1/accounts/${APP_ID}`, { method: 'PATCH', json: { quietHours } });
    expect(patched.body.quietHours).toEqual(quietHours);
    const sequence = await world.api.createSequence(
      aSequence({
        trigger: { type: 'keyword', keyword: 'quiet-d' },
        // The message window (1 min) closes before this default ends (1 h): a fallback lets it be moved.
        steps: [aStep({ message: aTextMessage('later'), fallback: aTemplateMessage('later') })],
      }),
    );
    const openid = anOpenid();

    await world.sim.message(openid, 'quiet-d 默认静默');
    const moved = await untilStep(
      openid,
      sequence.id,
      (m) => m.dueAt === new Date(end).toISOString(),
      'the step to move to the default’s end',
    );
    expect(moved).toMatchObject({ status: 'queued' });
    // Scheduled once the follower's message is processed (its window open), inside the same quiet hours.
    const reminder = await world.api.schedule({ appId: APP_ID, openid, message: aTextMessage('reminder') });

    await untilReceived(world.sim, openid, 'reminder');
    expect((await world.api.message(reminder.id)).dueAt).toBe(reminder.dueAt);
    expect(await world.sim.texts(openid)).toEqual(['reminder']);

    const cleared = await world.api(`/v1/accounts/${APP_ID}`, {
      method: 'PATCH',
      json: { quietHours: null },
    });
    expect(cleared.body.quietHours).toBeNull();
  });
});
