import {
  anOpenid,
  aSequence,
  aStep,
  aTextMessage,
  aWindowPolicy,
  type SequenceRequest,
  type Wait,
} from './support/builders';
import { expectRejected, untilMarker, untilReceived } from './support/expectations';
import type { FollowerEventView, SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/sequences.md "Journeys": a scan allows 5 messages within a minute here, so no path needs a fallback.
const POLICY = aWindowPolicy({ scan: { count: 5, windowMs: 60_000 } });

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'journeys', accounts: [anAccount({ windowPolicy: POLICY })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const text = (content: string) => aStep({ message: aTextMessage(content) });

/** Scan `scene` → "<scene>: welcome"; wait for `until`: yes → "<scene>: yes", timeout → "<scene>: no". */
const aJourney = (scene: string, until: Wait['until'], timeoutMs: number): SequenceRequest =>
  aSequence({
    trigger: { type: 'scan', scene },
    steps: [text(`${scene}: welcome`)],
    wait: { until, timeoutMs, yes: 'yes', no: 'no' },
    paths: { yes: { steps: [text(`${scene}: yes`)] }, no: { steps: [text(`${scene}: no`)] } },
  });

async function waiting(scene: string): Promise<string> {
  const openid = anOpenid(scene);
  await world.sim.scan(openid, scene);
  await untilReceived(world.sim, openid, `${scene}: welcome`);
  return openid;
}

describe('Journeys: wait for what the follower does, then branch', () => {
  it('a reply takes the yes path within a second; its timeout then takes nothing', async () => {
    await world.api.createSequence(aJourney('reply', { type: 'message' }, 4000));
    const openid = await waiting('reply');
    const replied = Date.now();
    await world.sim.message(openid, '你好');
    await untilReceived(world.sim, openid, 'reply: yes', 5000);
    const yes = (await world.sim.messages(openid)).find((m) => m.body.text?.content === 'reply: yes')!;
    expect(yes.receivedAt - replied).toBeLessThan(1000);
    await untilMarker(world.api, world.sim, openid, 5000);
    expect(await world.sim.texts(openid)).toEqual(['reply: welcome', 'reply: yes', 'marker']);
  });

  it('without a reply, the timeout takes the no path', async () => {
    await world.api.createSequence(aJourney('silent', { type: 'message' }, 1500));
    const openid = await waiting('silent');
    await untilReceived(world.sim, openid, 'silent: no', 10_000);
    await untilMarker(world.api, world.sim, openid, 1000);
    expect(await world.sim.texts(openid)).toEqual(['silent: welcome', 'silent: no', 'marker']);
  });

  it('a posted event meets its wait once: the answer names the path, a repeat continues nothing', async () => {
    const sequence = await world.api.createSequence(aJourney('paid', { type: 'event', name: 'paid' }, 4000));
    const openid = await waiting('paid');
    const post = () => world.api(`/v1/followers/${APP_ID}/${openid}/events`, { json: { name: 'paid' } });
    const first = (await post()).body as FollowerEventView;
    expect(first.continued).toEqual([
      { sequenceId: sequence.id, enrollmentId: expect.any(String), path: 'yes', steps: 1 },
    ]);
    expect(((await post()).body as FollowerEventView).continued).toEqual([]);
    await untilMarker(world.api, world.sim, openid, 5000);
    expect(await world.sim.texts(openid)).toEqual(['paid: welcome', 'paid: yes', 'marker']);
  });

  it('an unfollow while waiting: no path is taken', async () => {
    await world.api.createSequence(aJourney('gone', { type: 'message' }, 1500));
    const openid = await waiting('gone');
    await world.sim.unfollow(openid);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await world.sim.texts(openid)).toEqual(['gone: welcome']);
  });

  it('counts conversions per step, path and A/B variant: the last message sent before the goal', async () => {
    const sequence = await world.api.createSequence({
      ...aJourney('convert', { type: 'message' }, 30_000),
      steps: [
        {
          offsetMs: 0,
          variants: [
            { name: 'warm', weight: 1, message: aTextMessage('convert: welcome') },
            { name: 'plain', weight: 1, message: aTextMessage('convert: welcome') },
          ],
        },
      ],
      goal: { until: { type: 'event', name: 'bought' } },
    });
    const replied = await waiting('convert');
    await world.sim.message(replied, '好');
    await untilReceived(world.sim, replied, 'convert: yes');
    const silent = await waiting('convert');
    const buy = (openid: string) =>
      world.api(`/v1/followers/${APP_ID}/${openid}/events`, { json: { name: 'bought' } });
    expect(((await buy(replied)).body as FollowerEventView).converted).toBe(1);
    expect(((await buy(silent)).body as FollowerEventView).converted).toBe(1);
    expect(((await buy(silent)).body as FollowerEventView).converted).toBe(0);
    const results = (await world.api(`/v1/sequences/${sequence.id}/results`)).body as {
      conversions: {
        converted: number;
        rate: number;
        perStep: { stepIndex: number; variant: string | null }[];
      };
      paths: { path: string; converted: number }[];
    };
    expect(results.conversions).toMatchObject({ converted: 2, rate: 1 });
    // The follower who replied last got the yes path's step (1); the other, the A/B welcome (0).
    expect(results.conversions.perStep.map((c) => c.stepIndex).sort()).toEqual([0, 1]);
    expect(results.conversions.perStep.find((c) => c.stepIndex === 0)?.variant).toMatch(/^(warm|plain)$/);
    expect(results.paths.map((p) => [p.path, p.converted])).toEqual([
      ['main', 1],
      ['yes', 1],
      ['no', 0],
    ]);
  });

  it('followers played by the simulator on cue take each path: one replies, one clicks to buy, one stays silent', async () => {
    const sequence = await world.api.createSequence({
      ...aJourney('cue', { type: 'message' }, 3000),
      goal: { until: { type: 'click', key: 'BUY' } },
    });
    await world.sim.cues([
      {
        openidPrefix: 'cue-reply',
        when: { contains: 'cue: welcome' },
        then: { action: 'message', content: '好' },
        afterMs: 100,
      },
      {
        openidPrefix: 'cue-reply',
        when: { contains: 'cue: yes' },
        then: { action: 'click', key: 'BUY' },
        afterMs: 100,
      },
    ]);
    try {
      const replier = anOpenid('cue-reply');
      const silent = anOpenid('cue-silent');
      await world.sim.scan(replier, 'cue');
      await world.sim.scan(silent, 'cue');
      await untilReceived(world.sim, replier, 'cue: yes');
      await untilReceived(world.sim, silent, 'cue: no', 10_000);
      await waitFor(async () => {
        const r = (await world.api(`/v1/sequences/${sequence.id}/results`)).body as {
          conversions: { converted: number };
        };
        return r.conversions.converted === 1;
      }, 'the cued click to convert');
      expect(await world.sim.texts(replier)).toEqual(['cue: welcome', 'cue: yes']);
      expect(await world.sim.texts(silent)).toEqual(['cue: welcome', 'cue: no']);
    } finally {
      await world.sim.clearCues();
    }
  });

  it.each([
    ['a wait without a timeout', { timeoutMs: undefined }, 'wait.timeoutMs'],
    ['a wait leading to no declared path', { yes: 'nowhere' }, 'wait.yes'],
  ])('refuses %s with a 400 naming the field, writing nothing', async (_what, change, field) => {
    const before = (await world.api('/v1/sequences')).body as { sequences: SequenceView[] };
    const journey = aJourney('bad', { type: 'message' }, 1000);
    const res = await world.api('/v1/sequences', {
      json: { ...journey, wait: { ...journey.wait, ...change } },
    });
    expectRejected(res, field, 400);
    const after = (await world.api('/v1/sequences')).body as { sequences: SequenceView[] };
    expect(after.sequences.length).toBe(before.sequences.length);
  });

  it('refuses a loop and an unreachable path, naming each', async () => {
    const journey = aJourney('loop', { type: 'message' }, 1000);
    const res = await world.api('/v1/sequences', {
      json: {
        ...journey,
        paths: {
          yes: { steps: [text('again')], wait: { until: { type: 'message' }, timeoutMs: 1000, yes: 'yes' } },
          no: { steps: [text('no')] },
          orphan: { steps: [text('never')] },
        },
      },
    });
    expectRejected(res, 'paths.yes.wait.yes', 400);
    expectRejected(res, 'paths.orphan', 400);
  });
});
