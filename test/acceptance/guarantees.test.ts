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

describe('Guarantees, and how they are kept', () => {
  describe('Cancellation is a ledger', () => {
    it('by cancel key: every open message with the key reads cancelled at once and none is sent; a later one with the key is', async () => {
      const openid = anOpenid();
      const cancelKey = aKey('meeting');
      const doomed = await Promise.all(
        [400, 500, 600].map((delayMs) => world.api.schedule(aMessageRequest({ openid, cancelKey, delayMs }))),
      );
      const cancellation = await world.api.cancel({ appId: APP_ID, cancelKey, reason: 'meeting moved' });
      expect(cancellation).toMatchObject({ scope: expect.any(String), matched: 3 });
      for (const m of doomed) expect((await world.api.message(m.id)).status).toBe('cancelled');

      // "later ones are not affected": cancel + schedule again with the same key reschedules.
      await world.api.schedule(
        aMessageRequest({ openid, cancelKey, delayMs: 800, message: aTextMessage('moved') }),
      );
      await untilReceived(world.sim, openid, 'moved');
      expect(await world.sim.texts(openid)).toEqual(['moved']);
    });

    it('by follower: every open message for the follower reads cancelled and none is sent', async () => {
      const openid = anOpenid();
      const doomed = await Promise.all(
        [400, 500].map((delayMs) => world.api.schedule(aMessageRequest({ openid, delayMs }))),
      );
      const cancellation = await world.api.cancel({ appId: APP_ID, openid, reason: 'asked us to stop' });
      expect(cancellation.matched).toBe(2);
      for (const m of doomed) expect((await world.api.message(m.id)).status).toBe('cancelled');
      await world.api.schedule(aMessageRequest({ openid, delayMs: 700, message: aTextMessage('after') }));
      await untilReceived(world.sim, openid, 'after');
      expect(await world.sim.texts(openid)).toEqual(['after']);
    });

    it('by id: the message reads cancelled and is not sent', async () => {
      const openid = anOpenid();
      const doomed = await world.api.schedule(aMessageRequest({ openid, delayMs: 400 }));
      expect((await world.api(`/v1/messages/${doomed.id}`, { method: 'DELETE' })).status).toBe(200);
      await world.api.schedule(aMessageRequest({ openid, delayMs: 700, message: aTextMessage('after') }));
      await untilReceived(world.sim, openid, 'after');
      expect(await world.sim.texts(openid)).toEqual(['after']);
      expect((await world.api.message(doomed.id)).status).toBe('cancelled');
    });

    it('the answer is true: 1,000 cancellations racing the worker, each key receives total − matched', async () => {
      const KEYS = 1000;
      const PER_KEY = 3;
      const dueAt = Date.now() + 6000;
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
      await untilAllFinal(world.api, ids, 90_000);

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
    }, 150_000);
  });

  describe('Sequences: pausing answers how many pending steps it cancels', () => {
    it('the answer is true: 40 pauses racing the worker, each sequence sends steps − cancelledSteps', async () => {
      const SEQUENCES = 40;
      const FOLLOWERS = 3;
      const STEPS = 3;
      const OFFSET_MS = 3000;
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
      const clicksStarted = Date.now();
      await mapLimit(
        trials.flatMap((t) => t.openids.map((openid) => ({ openid, key: t.key }))),
        16,
        ({ openid, key }) => world.sim.click(openid, key),
      );
      // The steps fall due OFFSET_MS after each click was processed: pause around the middle of that.
      const dueAt = (clicksStarted + Date.now()) / 2 + OFFSET_MS;
      expect(dueAt - Date.now()).toBeGreaterThan(500);
      const answers = await Promise.all(
        trials.map((t) =>
          at(dueAt + jitter(100), async () => {
            const res = await world.api(`/v1/sequences/${t.id}/pause`, { method: 'POST' });
            expect(res.status).toBe(200);
            return res.body.cancelledSteps as number;
          }),
        ),
      );
      const timelines = async (openids: readonly string[]) =>
        Promise.all(openids.map((openid) => world.api.follower(APP_ID, openid)));
      await waitFor(
        async () => {
          for (const t of trials) {
            const messages = (await timelines(t.openids)).flatMap((f) => f.messages);
            if (messages.length !== FOLLOWERS * STEPS) return false;
            if (messages.some((m) => !['sent', 'cancelled'].includes(m.status))) return false;
          }
          return true;
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
    }, 90_000);
  });
});
