import {
  aMessageRequest,
  anOpenid,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
} from './support/builders';
import { untilReceived } from './support/expectations';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/sequences.md "Frequency cap": at most N drip messages per follower per calendar day (Asia/Shanghai) across
// all sequences; over the cap a step moves to the next day when it can still go out then. API reminders
// are not capped unless they ask.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'frequency-cap', accounts: [anAccount({ windowPolicy: 'official' })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** Midnight of the next day in Asia/Shanghai (UTC+8, no daylight saving), as an ISO time. */
function nextShanghaiMidnight(): string {
  const shanghai = new Date(Date.now() + 8 * 3_600_000);
  const midnight = Date.UTC(shanghai.getUTCFullYear(), shanghai.getUTCMonth(), shanghai.getUTCDate() + 1);
  return new Date(midnight - 8 * 3_600_000).toISOString();
}

describe('Frequency cap', () => {
  it('refuses a cap that is not a whole number from 1 to 100, and changes nothing', async () => {
    for (const bad of [0, 101, 1.5, '2']) {
      const res = await world.api(`/v1/accounts/${APP_ID}`, {
        method: 'PATCH',
        json: { frequencyCapPerDay: bad },
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('frequencyCapPerDay');
    }
    expect((await world.api(`/v1/accounts/${APP_ID}`)).body.frequencyCapPerDay).toBeNull();
  });

  it('sends a follower at most the cap of drip messages today; the step over it moves to tomorrow; reminders are not capped unless they ask', async () => {
    const patched = await world.api(`/v1/accounts/${APP_ID}`, {
      method: 'PATCH',
      json: { frequencyCapPerDay: 2 },
    });
    expect(patched.body.frequencyCapPerDay).toBe(2);
    const fallback = aTemplateMessage('tomorrow');
    const created = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'keyword', keyword: '课程' },
        steps: [
          aStep({ offsetMs: 0, message: aTextMessage('one'), fallback }),
          aStep({ offsetMs: 300, message: aTextMessage('two'), fallback }),
          aStep({ offsetMs: 600, message: aTextMessage('three'), fallback }),
        ],
      }),
    });
    expect(created.status).toBe(201);
    const openid = anOpenid();

    await world.sim.message(openid, '我想报名课程');
    await untilReceived(world.sim, openid, 'two');
    const third = await waitFor(
      async () =>
        (await world.api.follower(APP_ID, openid)).messages.find(
          (m) => m.stepIndex === 2 && m.dueAt === nextShanghaiMidnight(),
        ),
      'step 3 to move to the next day',
    );
    expect(third).toMatchObject({ status: 'queued' });

    // A reminder from the API is not capped; one that asks to be is held to tomorrow as well.
    const reminder = await world.api.schedule(aMessageRequest({ openid, message: aTextMessage('reminder') }));
    await untilReceived(world.sim, openid, 'reminder');
    expect((await world.api.message(reminder.id)).status).toBe('sent');
    const asked = await world.api.schedule(
      aMessageRequest({ openid, message: aTextMessage('capped reminder'), frequencyCapped: true }),
    );
    await waitFor(
      async () => (await world.api.message(asked.id)).dueAt === nextShanghaiMidnight(),
      'the capped reminder to move to the next day',
    );
    expect(await world.sim.texts(openid)).toEqual(['one', 'two', 'reminder']);
  });
  it('does not count a follower the service never heard from: three capped template reminders in one batch all go', async () => {
    const patched = await world.api(`/v1/accounts/${APP_ID}`, {
      method: 'PATCH',
      json: { frequencyCapPerDay: 2 },
    });
    expect(patched.body.frequencyCapPerDay).toBe(2);
    const openid = anOpenid('never-seen');
    // One sendAt: the three fall due together, in one wake-up and one claim.
    const sendAt = new Date(Date.now() + 1000).toISOString();
    const lines = await world.api.batch(
      ['first', 'second', 'third'].map((text) =>
        aMessageRequest({
          openid,
          channel: 'template',
          message: aTemplateMessage(text),
          sendAt,
          delayMs: undefined,
          frequencyCapped: true,
        }),
      ),
    );
    const ids = lines.flatMap((l) => ('ok' in l && l.ok ? [l.id] : []));
    expect(ids).toHaveLength(3);

    // Each is sent, or moved off its sendAt (to the next day, were the follower counted).
    const settled = await waitFor(async () => {
      const messages = await Promise.all(ids.map((id) => world.api.message(id)));
      return messages.every((m) => m.status === 'sent' || m.dueAt !== sendAt) ? messages : undefined;
    }, 'the three capped reminders to be sent or moved');
    expect(settled.map((m) => [m.status, m.dueAt])).toEqual(ids.map(() => ['sent', sendAt]));
    expect((await world.sim.messages(openid)).map((m) => m.channel)).toEqual([
      'template',
      'template',
      'template',
    ]);
  });
});
