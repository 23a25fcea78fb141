import {
  aMessageRequest,
  anOpenid,
  aWindowPolicy,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
  type SequenceRequest,
} from './support/builders';
import { FINAL_STATUSES, untilMarker, untilReceived } from './support/expectations';
import type { SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// A custom window policy (docs/webhook.md "Contact windows") with short windows, enforced by the service and the
// simulator alike: a menu click opens 3 messages within 1.5 s.
const POLICY = aWindowPolicy({ click: { count: 3, windowMs: 1500 } });

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'follow-drip', accounts: [anAccount({ windowPolicy: POLICY })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const createSequence = (request: SequenceRequest): Promise<SequenceView> => world.api.createSequence(request);
/** A message scheduled through the API after the drip: once it arrives, anything due before it has been handled. */
const marker = (openid: string) => untilMarker(world.api, world.sim, openid, 300);

/** Waits until the follower's (one) step of `sequence` reached a final status; returns it. */
async function untilStepFinal(openid: string, sequence: SequenceView): Promise<Record<string, unknown>> {
  return waitFor(
    async () =>
      (await world.api.follower(APP_ID, openid)).messages.find(
        (m) => m.sequenceId === sequence.id && (FINAL_STATUSES as readonly string[]).includes(m.status),
      ),
    `the sequence step for ${openid} to reach a final status`,
    { timeoutMs: 10_000 },
  );
}

const expectSuccess = (outcome: { pushes: readonly { status: number; body: string }[] }) =>
  expect(outcome.pushes.every((p) => p.status === 200 && p.body === 'success')).toBe(true);

describe('Follow → drip: the webhook, contact windows and sequences', () => {
  beforeAll(async () => {
    await createSequence(
      aSequence({ name: 'welcome', steps: [aStep({ message: aTextMessage('welcome') })] }),
    );
    await createSequence(
      aSequence({
        name: 'spring welcome',
        trigger: { type: 'subscribe', scene: 'spring' },
        steps: [aStep({ message: aTextMessage('spring welcome') })],
      }),
    );
    await createSequence(
      aSequence({
        trigger: { type: 'scan', scene: 'expo' },
        steps: [aStep({ message: aTextMessage('expo') })],
      }),
    );
    await createSequence(
      aSequence({
        trigger: { type: 'click', key: 'COURSES' },
        steps: [aStep({ message: aTextMessage('courses') })],
      }),
    );
    await createSequence(
      aSequence({
        trigger: { type: 'keyword', keyword: '课程' },
        steps: [aStep({ message: aTextMessage('keyword') })],
      }),
    );
  }, 30_000);

  it('a follow starts the follow sequence', async () => {
    const openid = anOpenid();
    expectSuccess(await world.sim.follow(openid));
    await untilReceived(world.sim, openid, 'welcome');
  });

  it('a follow from the qrscene_spring code starts the scene sequence, which takes precedence over the generic one', async () => {
    const openid = anOpenid();
    expectSuccess(await world.sim.follow(openid, { scene: 'spring' }));
    await untilReceived(world.sim, openid, 'spring welcome');
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['spring welcome', 'marker']);
  });

  it('a QR scan starts the scan sequence', async () => {
    const openid = anOpenid();
    await world.sim.follow(openid);
    expectSuccess(await world.sim.scan(openid, 'expo'));
    await untilReceived(world.sim, openid, 'expo');
  });

  it('a menu click starts the click sequence', async () => {
    const openid = anOpenid();
    await world.sim.follow(openid);
    expectSuccess(await world.sim.click(openid, 'COURSES'));
    await untilReceived(world.sim, openid, 'courses');
  });

  it('a user message containing the keyword starts the keyword sequence', async () => {
    const openid = anOpenid();
    await world.sim.follow(openid);
    expectSuccess(await world.sim.message(openid, '请问有什么课程？'));
    await untilReceived(world.sim, openid, 'keyword');
  });

  it("WeChat's retried pushes (the identical push three times) start nothing twice", async () => {
    const openid = anOpenid();
    expectSuccess(await world.sim.follow(openid, { repeat: 3 }));
    await untilReceived(world.sim, openid, 'welcome');
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['welcome', 'marker']);
    expect((await world.api.follower(APP_ID, openid)).enrollments).toHaveLength(1);
  });

  it('a step due outside the contact window goes out as its template fallback', async () => {
    const fallback = aTemplateMessage('we saved your seat');
    const sequence = await createSequence(
      aSequence({
        trigger: { type: 'click', key: 'LATE_STEP' },
        steps: [aStep({ offsetMs: 2500, message: aTextMessage('too late for the window'), fallback })],
      }),
    );
    const openid = anOpenid();
    await world.sim.follow(openid);
    expectSuccess(await world.sim.click(openid, 'LATE_STEP'));
    const step = await untilStepFinal(openid, sequence);
    expect(step).toMatchObject({ status: 'sent' });
    const [sent] = (await world.sim.messages(openid)).filter((m) => m.channel === 'template');
    expect(sent).toBeDefined();
    expect(sent.body).toMatchObject({
      touser: openid,
      template_id: fallback.template_id,
      data: fallback.data,
    });
    expect(await world.sim.texts(openid)).not.toContain('too late for the window');
  });

  it('a step due when the window has no messages left, without a fallback, is skipped with reason window_closed', async () => {
    const sequence = await createSequence(
      aSequence({
        trigger: { type: 'click', key: 'NO_FALLBACK' },
        steps: [aStep({ offsetMs: 1200, message: aTextMessage('nothing left') })],
      }),
    );
    const openid = anOpenid();
    expectSuccess(await world.sim.click(openid, 'NO_FALLBACK'));
    // The webhook answers once the push is stored and processes it just after: the click's window (and
    // the enrollment) exist once the follower's timeline shows the enrollment.
    await waitFor(
      async () => (await world.api.follower(APP_ID, openid)).enrollments.length > 0,
      'the click to be processed',
    );
    // The click's allowance (3 messages) is used up by the API before the step falls due.
    for (let i = 0; i < 3; i++) {
      await world.api.schedule(aMessageRequest({ openid, message: aTextMessage(`first ${i}`) }));
    }
    const step = await untilStepFinal(openid, sequence);
    expect(step).toMatchObject({ status: 'skipped', statusReason: 'window_closed' });
    expect(await world.sim.texts(openid)).not.toContain('nothing left');
  });

  it("an unfollow cancels the rest of the drip and erases the follower's data", async () => {
    const sequence = await createSequence(
      aSequence({
        trigger: { type: 'keyword', keyword: '退订测试' },
        steps: [
          aStep({ offsetMs: 0, message: aTextMessage('first') }),
          aStep({ offsetMs: 3000, message: aTextMessage('second') }),
        ],
      }),
    );
    const openid = anOpenid();
    await world.sim.follow(openid);
    expectSuccess(await world.sim.message(openid, '退订测试'));
    await untilReceived(world.sim, openid, 'first');
    expectSuccess(await world.sim.unfollow(openid));

    await waitFor(async () => {
      const results = (await world.api(`/v1/sequences/${sequence.id}/results`)).body;
      return results.steps?.[1]?.cancelled === 1;
    }, 'the second step to count as cancelled');
    const timeline = await world.api.follower(APP_ID, openid);
    expect(timeline).toMatchObject({ interactions: [], enrollments: [], messages: [] });
    expect(JSON.stringify(timeline)).not.toContain('退订测试');
    expect(JSON.stringify(timeline.follower ?? {})).not.toMatch(/first|second/);
  });
});
