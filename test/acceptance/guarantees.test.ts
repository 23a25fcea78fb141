import {
  aKey,
  aMessageRequest,
  anOpenid,
  aSequence,
  aStep,
  aTextMessage,
  type MessageRequest,
} from './support/builders';
import { untilReceived } from './support/expectations';
import { at, jitter, mapLimit, untilAllFinal } from './support/trials';
import type { BatchLine, SimMessage } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'guarantees',
    accounts: [anAccount({ windowPolicy: 'none', sendRatePerSecond: 20_000 })],
    enforceWindow: false,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const countBy = (messages: readonly SimMessage[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(m.openid, (counts.get(m.openid) ?? 0) + 1);
  return counts;
};

/**
 * How far ahead the doomed messages fall due: scheduling them and cancelling takes far less even on a
 * loaded machine, so that the cancel is never late by the machine's fault (the later ones come after them).
 */
const LEAD_MS = 3000;

describe('Guarantees, and how they are kept', () => {
  describe('Cancellation is a ledger', () => {
    it('by cancel key: every open message with the key reads cancelled at once and none is sent; a later one with the key is', async () => {
      const openid = anOpenid();
      const cancelKey = aKey('meeting');
      const doomed = await Promise.all(
        [0, 100, 200].map((ms) =>
          world.api.schedule(aMessageRequest({ openid, cancelKey, delayMs: LEAD_MS + ms })),
        ),
      );
      const cancellation = await world.api.cancel({ appId: APP_ID, cancelKey, reason: 'meeting moved' });
      expect(cancellation).toMatchObject({ scope: expect.any(String), matched: 3 });
      for (const m of doomed) expect((await world.api.message(m.id)).status).toBe('cancelled');

      // "later ones are not affected": cancel + schedule again with the same key reschedules.
      await world.api.schedule(
        aMessageRequest({ openid, cancelKey, delayMs: LEAD_MS + 400, message: aTextMessage('moved') }),
      );
      await untilReceived(world.sim, openid, 'moved');
      expect(await world.sim.texts(openid)).toEqual(['moved']);
    });

    it('by follower: every open message for the follower reads cancelled and none is sent', async () => {
      const openid = anOpenid();
      const doomed = await Promise.all(
        [0, 100].map((ms) => world.api.schedule(aMessageRequest({ openid, delayMs: LEAD_MS + ms }))),
      );
      const cancellation = await world.api.cancel({ appId: APP_ID, openid, reason: 'asked us to stop' });
      expect(cancellation.matched).toBe(2);
      for (const m of doomed) expect((await world.api.message(m.id)).status).toBe('cancelled');
      await world.api.schedule(
        aMessageRequest({ openid, delayMs: LEAD_MS + 300, message: aTextMessage('after') }),
      );
      await untilReceived(world.sim, openid, 'after');
      expect(await world.sim.texts(openid)).toEqual(['after']);
    });

    it('by id: the message reads cancelled and is not sent', async () => {
      const openid = anOpenid();
      const doomed = await world.api.schedule(aMessageRequest({ openid, delayMs: LEAD_MS }));
      expect((await world.api(`/v1/messages/${doomed.id}`, { method: 'DELETE' })).status).toBe(200);
      await world.api.schedule(
        aMessageRequest({ openid, delayMs: LEAD_MS + 300, message: aTextMessage('after') }),
      );
      await untilReceived(world.sim, openid, 'after');
      expect(await world.sim.texts(openid)).toEqual(['after']);
      expect((await world.api.message(doomed.id)).status).toBe('cancelled');
    });

    it('the answer is true: 1,000 cancellations racing the worker, each key receives total − matched', async () => {
      const KEYS = 1000;
      const PER_KEY = 3;
      // Scheduling 3,000 messages takes about 1 s on a quiet machine and 5 s on a loaded one.
      const dueAt = Date.now() + 15_000;
      const trials = Array.from({ length: KEYS }, () => ({
        openid: anOpenid('race'),
        cancelKey: aKey('race'),
      }));
      const requests: MessageRequest[] = trials.flatMap(({ openid, cancelKey }) =>
        Array.from({ length: PER_KEY }, (_, i) =>
          aMessageRequest({
            openid,
            cancelKey,
            delayMs: undefined,
            sendAt: new Date(dueAt).toISOString(),
            message: aTextMessage(`race ${i}`),
          }),
        ),
      );
      const lines = await world.api.batch(requests);
      const ids = lines.flatMap((l: BatchLine) => ('ok' in l && l.ok ? [l.id] : []));
      expect(ids).toHaveLength(KEYS * PER_KEY);
      // The race is only a race if everything was scheduled well before the due instant.
      expect(dueAt - Date.now()).toBeGreaterThan(1000);

      const matched = await Promise.all(
        trials.map(({ cancelKey }) =>
          at(dueAt + jitter(100), () => world.api.cancel({ appId: APP_ID, cancelKey, reason: 'race' })),
        ),
      );
      // What the simulator must receive, waited on in one cheap request per poll; only then is every
      // message read (3,000 reads a poll would compete with the worker they wait for).
      const expected = matched.reduce((n, m) => n + PER_KEY - m.matched, 0);
      const racers = new Set(trials.map((t) => t.openid));
      await waitFor(
        async () => (await world.sim.messages()).filter((m) => racers.has(m.openid)).length >= expected,
        `the simulator to receive the ${expected} messages not cancelled`,
        { timeoutMs: 90_000, intervalMs: 250 },
      );
      await untilAllFinal(world.api, ids, 30_000);

      const received = countBy(await world.sim.messages());
      const wrong = trials
        .map(({ openid }, i) => ({
          openid,
          matched: matched[i].matched,
          received: received.get(openid) ?? 0,
        }))
        .filter((t) => t.received !== PER_KEY - t.matched);
      const cancelledSome = matched.filter((m) => m.matched > 0).length;
      // Both outcomes must have happened, or the moments missed the race.
      expect(cancelledSome).toBeGreaterThan(0);
      expect(cancelledSome).toBeLessThan(KEYS);
      expect({ wrongKeys: wrong.length, examples: wrong.slice(0, 5) }).toEqual({
        wrongKeys: 0,
        examples: [],
      });
    }, 180_000);
  });

  describe('Sequences: pausing answers how many pending steps it cancels', () => {
    it('the answer is true: 40 pauses racing the worker, each sequence sends steps − cancelledSteps', async () => {
      const SEQUENCES = 40;
      const FOLLOWERS = 3;
      const STEPS = 3;
      // Long enough that the 120 clicks (6 s beside a CPU hog on a busy machine) and their enrollments end before it.
      const OFFSET_MS = 6000;
      const trials = await mapLimit(
        Array.from({ length: SEQUENCES }, (_, i) => i),
        8,
        async (i) => {
          const key = aKey(`menu${i}`);
          const res = await world.api('/v1/sequences', {
            json: aSequence({
              trigger: { type: 'click', key },
              steps: Array.from({ length: STEPS }, (_, s) =>
                aStep({ offsetMs: OFFSET_MS, message: aTextMessage(`step ${s}`) }),
              ),
            }),
          });
          expect(res.status).toBe(201);
          return {
            id: res.body.id as string,
            key,
            openids: Array.from({ length: FOLLOWERS }, () => anOpenid('pause')),
          };
        },
      );
      const clicks = await mapLimit(
        trials.flatMap((t) => t.openids.map((openid) => ({ openid, key: t.key }))),
        16,
        ({ openid, key }) => world.sim.click(openid, key),
      );
      // Each click taken at once: the 1,000 cancellations above leave a pool of idle keep-alive
      // connections as large as the service's cap, which must not shut WeChat out.
      const refused = clicks.filter((c) => c.pushes.at(-1)?.body !== 'success');
      expect(refused.map((c) => c.pushes)).toEqual([]);
      // The webhook answers a click once it is recorded and enrolls right after: on a loaded machine that
      // may take seconds. Wait for every enrollment's steps, then pause each sequence at its steps' due time.
      const dueOf = new Map<string, number>();
      await waitFor(
        async () => {
          const timelines = await mapLimit(trials, 8, async (t) => {
            const followers = await Promise.all(t.openids.map((o) => world.api.follower(APP_ID, o)));
            return { t, messages: followers.flatMap((f) => f.messages) };
          });
          const missing = timelines.filter((x) => x.messages.length < FOLLOWERS * STEPS).length;
          if (missing > 0) throw new Error(`${missing} sequences still enrolling`);
          for (const { t, messages } of timelines)
            dueOf.set(t.id, Math.min(...messages.map((m) => Date.parse(m.dueAt as string))));
          return true;
        },
        'every click to enroll its follower',
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      const answers = await Promise.all(
        trials.map((t) =>
          at(dueOf.get(t.id)! + jitter(100), async () => {
            const res = await world.api(`/v1/sequences/${t.id}/pause`, { method: 'POST' });
            expect(res.status).toBe(200);
            return res.body.cancelledSteps as number;
          }),
        ),
      );
      // As above: wait on the simulator's count in one request per poll, then read the timelines.
      const expected = answers.reduce((n, cancelled) => n + FOLLOWERS * STEPS - cancelled, 0);
      const pausers = new Set(trials.flatMap((t) => t.openids));
      await waitFor(
        async () => {
          const n = (await world.sim.messages()).filter((m) => pausers.has(m.openid)).length;
          if (n < expected) throw new Error(`received ${n} of ${expected}`);
          return true;
        },
        `the simulator to receive the ${expected} steps not cancelled`,
        { timeoutMs: 60_000, intervalMs: 250 },
      );
      await waitFor(
        async () => {
          const timelines = await mapLimit([...pausers], 16, (openid) => world.api.follower(APP_ID, openid));
          const messages = timelines.flatMap((f) => f.messages);
          return (
            messages.length === SEQUENCES * FOLLOWERS * STEPS &&
            messages.every((m) => ['sent', 'cancelled'].includes(m.status))
          );
        },
        'every step of every sequence to be sent or cancelled',
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      const received = countBy(await world.sim.messages());
      const wrong = trials
        .map((t, i) => ({
          sequence: t.id,
          cancelledSteps: answers[i],
          sent: t.openids.reduce((n, o) => n + (received.get(o) ?? 0), 0),
        }))
        .filter((t) => t.sent !== FOLLOWERS * STEPS - t.cancelledSteps);
      expect({ wrongSequences: wrong.length, examples: wrong.slice(0, 5) }).toEqual({
        wrongSequences: 0,
        examples: [],
      });
    }, 180_000);
  });
});
