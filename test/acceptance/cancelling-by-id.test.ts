import { randomUUID } from 'node:crypto';
import { anOpenid, aMessageRequest, aTextMessage } from './support/builders';
import { expectRejected, untilFinal, untilReceived, untilStatus } from './support/expectations';
import { createSimulatorClient } from './support/simulator-client';
import type { CancelByIdsView } from './support/types';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

const OTHER_APP = 'wxacceptance0002';
let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'cancelling-by-id',
    accounts: [anAccount(), anAccount({ appId: OTHER_APP, secret: 'acceptance-secret-2' })],
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const cancelByIds = async (ids: readonly string[], reason = 'campaign stopped') => {
  const res = await world.api('/v1/cancellations', { json: { ids, reason } });
  expect(res.status).toBe(200);
  return res.body as CancelByIdsView;
};

describe('Cancelling messages by id, in bulk', () => {
  it('cancels open messages of two accounts, answers each id in order, and the cancelled ones never arrive', async () => {
    const openid = anOpenid();
    // Due once the first message has surely been sent, even on a busy machine.
    const mine = await world.api.schedule(
      aMessageRequest({ openid, delayMs: 5000, message: aTextMessage('a') }),
    );
    const theirs = await world.api.schedule(
      aMessageRequest({ appId: OTHER_APP, openid, delayMs: 5000, message: aTextMessage('b') }),
    );
    const sent = await world.api.schedule(aMessageRequest({ openid, message: aTextMessage('sent first') }));
    await untilStatus(world.api, sent.id, 'sent');
    const missing = randomUUID();

    const answer = await cancelByIds([mine.id, missing, sent.id, theirs.id]);

    expect(answer).toEqual({
      cancelled: 2,
      alreadyCancelled: 0,
      notCancellable: 1,
      notFound: 1,
      results: [
        { id: mine.id, outcome: 'cancelled', status: 'cancelled' },
        { id: missing, outcome: 'not_found' },
        { id: sent.id, outcome: 'not_cancellable', status: 'sent' },
        { id: theirs.id, outcome: 'cancelled', status: 'cancelled' },
      ],
    });
    // Asking again changes nothing: each reads as already cancelled.
    expect(await cancelByIds([mine.id, theirs.id])).toMatchObject({ cancelled: 0, alreadyCancelled: 2 });
    // Past their due time, with a later message to each account as the marker that the worker got there.
    await world.api.schedule(aMessageRequest({ openid, delayMs: 5500, message: aTextMessage('marker') }));
    await world.api.schedule(
      aMessageRequest({ appId: OTHER_APP, openid, delayMs: 5500, message: aTextMessage('marker 2') }),
    );
    const otherSim = createSimulatorClient(world.sim.url, OTHER_APP);
    await untilReceived(world.sim, openid, 'marker');
    await untilReceived(otherSim, openid, 'marker 2');
    expect(await world.sim.texts(openid)).toEqual(['sent first', 'marker']);
    expect(await otherSim.texts(openid)).toEqual(['marker 2']);
    expect((await world.api.message(mine.id)).status).toBe('cancelled');
  });

  it('racing the worker for messages falling due: every id answered cancelled is never sent, every other one is', async () => {
    const openid = anOpenid('race');
    const lines = await world.api.batch(
      Array.from({ length: 300 }, (_, i) =>
        aMessageRequest({ openid, delayMs: i, message: aTextMessage(`m${i}`) }),
      ),
    );
    const ids = lines.flatMap((l) => ('ok' in l && l.ok ? [l.id] : []));
    expect(ids).toHaveLength(300);

    const answer = await cancelByIds(ids);

    expect(answer.cancelled + answer.notCancellable).toBe(300);
    const kept = answer.results.filter((r) => r.outcome !== 'cancelled').map((r) => r.id);
    for (const id of kept) expect((await untilFinal(world.api, id)).status).toBe('sent');
    await world.api.schedule(aMessageRequest({ openid, delayMs: 500, message: aTextMessage('marker') }));
    await untilReceived(world.sim, openid, 'marker');
    const contentOf = new Map(ids.map((id, i) => [id, `m${i}`]));
    expect([...(await world.sim.texts(openid))].sort()).toEqual(
      [...kept.map((id) => contentOf.get(id)!), 'marker'].sort(),
    );
  });

  it.each([
    ['a repeated id', (id: string) => ({ ids: [id, id], reason: 'r' }), 'ids.1'],
    [
      'ids with a cancelKey',
      (id: string) => ({ ids: [id], appId: APP_ID, cancelKey: 'k', reason: 'r' }),
      'cancelKey',
    ],
    ['an id that is not a UUID', (id: string) => ({ ids: [id, 'nope'], reason: 'r' }), 'ids.1'],
    ['no reason', (id: string) => ({ ids: [id] }), 'reason'],
  ])('%s: a 400 naming the field, and nothing cancelled', async (_what, body, field) => {
    const open = await world.api.schedule(aMessageRequest({ delayMs: 60_000 }));
    const res = await world.api('/v1/cancellations', { json: body(open.id) });
    expectRejected(res, field, 400);
    expect((await world.api.message(open.id)).status).not.toBe('cancelled');
  });
});
