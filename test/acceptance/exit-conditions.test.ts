import {
  aKey,
  anOpenid,
  aWindowPolicy,
  aSequence,
  aStep,
  aTextMessage,
  type ExitCondition,
  type SequenceRequest,
} from './support/builders';
import { expectRejected, untilMarker, untilReceived } from './support/expectations';
import type { FollowerEventView, SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/webhook.md "Contact windows": short custom windows, enforced by the service and the simulator alike; a scan
// allows the three lessons and a marker.
const POLICY = aWindowPolicy({ scan: { count: 5, windowMs: 60_000 } });

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'exit-conditions', accounts: [anAccount({ windowPolicy: POLICY })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const createSequence = (request: SequenceRequest): Promise<SequenceView> => world.api.createSequence(request);

/** Three lessons, 2 s apart, started by a scan of `scene`. */
const lessons = (scene: string, exits: ExitCondition[]) =>
  aSequence({
    trigger: { type: 'scan', scene },
    steps: [0, 2000, 4000].map((offsetMs, i) =>
      aStep({ offsetMs, message: aTextMessage(`lesson ${i + 1}`) }),
    ),
    exits,
  });

/** A message scheduled through the API after every lesson still due: once it arrives, all were handled. */
const marker = (openid: string) => untilMarker(world.api, world.sim, openid, 4500);

/** Waits until the sequence's results count `n` exits for `reason`. */
async function untilExited(sequence: SequenceView, reason: string, n = 1): Promise<void> {
  await waitFor(
    async () => (await world.api(`/v1/sequences/${sequence.id}/results`)).body.exited?.[reason] === n,
    `${n} exit(s) ${reason} in the results of ${sequence.id}`,
  );
}

const postEvent = (openid: string, body: object, appId = APP_ID) =>
  world.api(`/v1/followers/${appId}/${openid}/events`, { json: body });

describe('Follow → drip: exit conditions', () => {
  it('a follower who sends "退订" after step 1 gets nothing more', async () => {
    const sequence = await createSequence(lessons('course-a', [{ type: 'message', keyword: '退订' }]));
    const openid = anOpenid();
    await world.sim.scan(openid, 'course-a');
    await untilReceived(world.sim, openid, 'lesson 1');
    await world.sim.message(openid, '退订');
    await untilExited(sequence, 'exit:message:退订');
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['lesson 1', 'marker']);
  });

  it('a follower clicking the exit key exits', async () => {
    const sequence = await createSequence(lessons('course-b', [{ type: 'click', key: 'STOP_LESSONS' }]));
    const openid = anOpenid();
    await world.sim.scan(openid, 'course-b');
    await untilReceived(world.sim, openid, 'lesson 1');
    await world.sim.click(openid, 'STOP_LESSONS');
    await untilExited(sequence, 'exit:click:STOP_LESSONS');
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['lesson 1', 'marker']);
  });
});

describe('Follower events from other systems', () => {
  let shop: SequenceView;
  let thanks: SequenceView;
  beforeAll(async () => {
    shop = await createSequence(lessons('shop', [{ type: 'event', name: 'purchased' }]));
    thanks = await createSequence(
      aSequence({
        trigger: { type: 'event', name: 'purchased' },
        steps: [aStep({ message: aTextMessage('thank you') })],
      }),
    );
  }, 30_000);

  it('an API event exits one sequence and starts another', async () => {
    const openid = anOpenid();
    await world.sim.scan(openid, 'shop');
    await untilReceived(world.sim, openid, 'lesson 1');
    const res = await postEvent(openid, { name: 'purchased' });
    expect(res.status).toBe(201);
    expect(res.body as FollowerEventView).toMatchObject({
      name: 'purchased',
      exited: [{ sequenceId: shop.id, reason: 'exit:event:purchased', cancelled: 2 }],
      enrolled: [{ sequenceId: thanks.id, steps: 1 }],
    });
    await untilReceived(world.sim, openid, 'thank you');
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['lesson 1', 'thank you', 'marker']);
  });

  it('a replayed idempotencyKey changes nothing', async () => {
    const openid = anOpenid();
    await world.sim.scan(openid, 'shop');
    await untilReceived(world.sim, openid, 'lesson 1');
    const key = aKey('order');
    const first = await postEvent(openid, { name: 'purchased', idempotencyKey: key });
    const replay = await postEvent(openid, { name: 'purchased', idempotencyKey: key });
    expect([first.status, replay.status]).toEqual([201, 200]);
    expect(replay.body).toEqual(first.body as FollowerEventView);
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['lesson 1', 'thank you', 'marker']);
    expect((await world.api.follower(APP_ID, openid)).enrollments).toHaveLength(2);
  });

  it('bad input is a clear 4xx that starts and ends nothing', async () => {
    const openid = anOpenid();
    await world.sim.scan(openid, 'shop');
    await untilReceived(world.sim, openid, 'lesson 1');
    expectRejected(await postEvent(openid, { name: 'purchased' }, 'wxnotconfigured01'), 'account', 404);
    expectRejected(await postEvent('not%20an%20openid', { name: 'purchased' }), 'params.openid', 400);
    expectRejected(await postEvent(openid, { name: 'bought it' }), 'name', 400);
    expectRejected(await postEvent(openid, { name: 'purchased\u0000' }), 'name', 400);
    await marker(openid);
    expect(await world.sim.texts(openid)).toEqual(['lesson 1', 'lesson 2', 'lesson 3', 'marker']);
  });
});
