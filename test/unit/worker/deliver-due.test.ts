import { randomUUID } from 'node:crypto';
import type { Pool } from '../../../src/db/pool';
import { createMetrics } from '../../../src/metrics';
import type { ClaimedMessage, ClaimResult } from '../../../src/store/claim-due';
import type { Outcome } from '../../../src/store/record-outcomes';
import type { SendReservation } from '../../../src/store/send-pacing';
import { ANSWER_LOST, classifyErrcode } from '../../../src/wechat/errcodes';
import type { CustomMessage } from '../../../src/wechat/message-schema';
import type { JudgedSend, Sender } from '../../../src/wechat/judged-sender';
import { createDeliverDue } from '../../../src/worker/deliver-due';
import type { DeliveryStore } from '../../../src/worker/delivery-store';
import { createSendSlots, type SendSlots } from '../../../src/worker/send-slots';
import { APP_ID, aTextMessage } from '../../helpers/builders';
import { silentLogger } from '../../helpers/logger';
import { FakeChannel } from './fake-channel';

const aClaimed = (id: string): ClaimedMessage => ({
  id,
  appId: APP_ID,
  openid: 'o-1',
  channel: 'custom',
  payload: aTextMessage(id),
  dueAt: new Date(),
  attempts: 1,
  claimedAs: 'send',
  requestId: null,
});

/** A send WeChat accepted. */
const accepted = (): JudgedSend => ({
  result: { errcode: 0, errmsg: 'ok', durationMs: 5 },
  at: new Date(),
  verdict: classifyErrcode(0),
});

/**
 * The store as deliverDue uses it, in memory: each claim claims every id it is given (unless `decide`
 * says otherwise) and records how many send slots were taken when it ran.
 */
class FakeStore implements DeliveryStore {
  readonly claims: { ids: string[]; slotsInUse: number }[] = [];
  readonly recorded: Outcome[] = [];
  decide: (ids: readonly string[], call: number) => ClaimResult = (ids) => ({
    claimed: ids.map(aClaimed),
    early: [],
    cancelled: [],
    skipped: [],
  });

  constructor(private readonly slots: SendSlots) {}

  async claimDue(ids: readonly string[]): Promise<ClaimResult> {
    this.claims.push({ ids: [...ids], slotsInUse: this.slots.inUse });
    return this.decide(ids, this.claims.length);
  }
  async recordOutcomes(outcomes: readonly Outcome[]): Promise<void> {
    this.recorded.push(...outcomes);
  }
  async pauseAccount(): Promise<void> {}
  async closeWindow(): Promise<void> {}
  async reserveSends(): Promise<SendReservation[]> {
    return [];
  }
}

/** A WeChat whose sends answer when the test lets them (`answerAll`), or at once when `held` is false. */
class FakeSender implements Sender {
  readonly sent: string[] = [];
  held = false;
  /** What each send comes back with. */
  answer: () => JudgedSend = accepted;
  private readonly waiting: (() => void)[] = [];

  sendCustom(_appId: string, _openid: string, message: CustomMessage): Promise<JudgedSend> {
    this.sent.push((message as { text: { content: string } }).text.content);
    if (!this.held) return Promise.resolve(this.answer());
    return new Promise((resolve) => this.waiting.push(() => resolve(this.answer())));
  }
  sendTemplate(): Promise<JudgedSend> {
    return Promise.reject(new Error('no template message in these tests'));
  }
  sendNotice(): Promise<JudgedSend> {
    return Promise.reject(new Error('no subscription notice in these tests'));
  }
  get inFlight(): number {
    return this.waiting.length;
  }
  answerAll(): void {
    for (const answer of this.waiting.splice(0)) answer();
  }
}

/** A deliverDue on fakes: `capacity` send slots, slices of at most `batchSize`. */
function setUp(opts: { capacity: number; batchSize: number }) {
  const slots = createSendSlots(opts.capacity);
  const store = new FakeStore(slots);
  const sender = new FakeSender();
  const published: { ids: readonly string[]; reason: string | undefined }[] = [];
  // Its gauges read the pool only when scraped, which these tests never do.
  const metrics = createMetrics({ pool: {} as Pool, transportMode: 'levels' });
  const deliverDue = createDeliverDue({
    store,
    publisher: {
      publishWakeUp: async (wakeUp, reason) => void published.push({ ids: wakeUp.ids, reason }),
      publishDead: async () => undefined,
    },
    sender,
    paceSends: async () => async () => undefined,
    gate: { run: (_what, fn) => fn(), close: () => undefined },
    policy: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, atLeastOnceAppIds: [] },
    earlyToleranceMs: 50,
    batchSize: opts.batchSize,
    slots,
    uncheckedAppIds: [APP_ID],
    metrics,
    logger: silentLogger,
  });
  const channel = new FakeChannel();
  /** `count` wake-ups of one id each, so that each settlement names one message. */
  const wakeUps = (count: number) => {
    const ids = Array.from({ length: count }, () => randomUUID());
    return { ids, batch: ids.map((id) => channel.deliver([id])) };
  };
  return { slots, store, sender, published, deliverDue, channel, wakeUps, metrics };
}

/** Lets every callback already queued run (the fakes answer at once). */
const settle = () => new Promise((r) => setImmediate(r));

const outcomes = (channel: FakeChannel) => channel.settlements.map((s) => s.outcome);

describe('deliverDue', () => {
  it('claims a batch in slices of at most batchSize, in order, sends each message once and acks every wake-up', async () => {
    const { store, sender, deliverDue, channel, wakeUps, slots } = setUp({ capacity: 10, batchSize: 3 });
    const { ids, batch } = wakeUps(7);

    await deliverDue(batch);

    expect(store.claims.map((c) => c.ids)).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    expect(sender.sent).toEqual(ids);
    expect(store.recorded.map((o) => [o.id, o.status])).toEqual(ids.map((id) => [id, 'sent']));
    expect(outcomes(channel)).toEqual(Array(7).fill('ack'));
    expect(slots.inUse).toBe(0);
  });

  it('records a customer-service send whose answer was lost unknown, acks its wake-up without a re-delay, and counts it', async () => {
    const { store, sender, published, deliverDue, channel, wakeUps, metrics } = setUp({
      capacity: 10,
      batchSize: 10,
    });
    sender.answer = () => ({
      result: {
        errcode: null,
        errmsg: 'timeout (UND_ERR_HEADERS_TIMEOUT)',
        durationMs: 10_000,
        answerLost: true,
      },
      at: new Date(),
      verdict: ANSWER_LOST,
    });
    const { ids, batch } = wakeUps(1);

    await deliverDue(batch);

    expect(store.recorded).toEqual([
      expect.objectContaining({ id: ids[0], status: 'unknown', reason: 'answer_lost', label: 'unknown' }),
    ]);
    expect(published).toEqual([]);
    expect(outcomes(channel)).toEqual(['ack']);
    const unknown = await metrics.unknown.get();
    expect(unknown.values).toEqual([{ labels: { reason: 'answer_lost' }, value: 1 }]);
  });

  it('claims no more than the free send slots, and the next slice only once the sends of the last are recorded', async () => {
    const { store, sender, deliverDue, channel, wakeUps, slots } = setUp({ capacity: 2, batchSize: 10 });
    const { ids, batch } = wakeUps(5);
    sender.held = true;

    const done = deliverDue(batch);
    await settle();
    // Two slots: two rows claimed, sent, and no further claim while their sends are in flight.
    expect(store.claims.map((c) => c.ids)).toEqual([ids.slice(0, 2)]);
    expect(sender.inFlight).toBe(2);
    expect(store.recorded).toEqual([]);

    sender.answerAll();
    await settle();
    expect(store.claims.map((c) => c.ids)).toEqual([ids.slice(0, 2), ids.slice(2, 4)]);
    expect(store.recorded.map((o) => o.id)).toEqual(ids.slice(0, 2));

    sender.answerAll();
    await settle();
    sender.answerAll();
    await done;
    expect(store.claims.map((c) => c.ids)).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    expect(store.claims.every((c) => c.slotsInUse <= 2)).toBe(true);
    expect(outcomes(channel)).toEqual(Array(5).fill('ack'));
    expect(slots.inUse).toBe(0);
  });

  it('sizes a slice by the slots another batch left free, and waits for one when none is', async () => {
    const { store, sender, deliverDue, wakeUps, slots } = setUp({ capacity: 3, batchSize: 10 });
    const { ids, batch } = wakeUps(4);
    expect(await slots.acquireUpTo(3)).toBe(3); // another batch's sends hold every slot
    sender.held = true;

    const done = deliverDue(batch);
    await settle();
    expect(store.claims).toEqual([]);

    slots.release(1); // one of the other batch's rows is recorded
    await settle();
    expect(store.claims).toEqual([{ ids: ids.slice(0, 1), slotsInUse: 3 }]);

    slots.release(2); // the rest of the other batch is recorded: the next slice may take three
    sender.answerAll();
    await settle();
    sender.answerAll();
    await done;
    expect(store.claims).toEqual([
      { ids: ids.slice(0, 1), slotsInUse: 3 },
      { ids: ids.slice(1), slotsInUse: 3 },
    ]);
    expect(slots.inUse).toBe(0);
  });

  it('gives the slots of ids the claim did not take back at once, before the sends answer', async () => {
    const { store, sender, deliverDue, channel, wakeUps, slots } = setUp({ capacity: 4, batchSize: 4 });
    const { ids, batch } = wakeUps(4);
    // One cancelled by the ledger, one gone (finished, or someone else's): only two are claimed.
    store.decide = (claimIds) => ({
      claimed: claimIds.slice(0, 2).map(aClaimed),
      early: [],
      cancelled: [claimIds[2]],
      skipped: [],
    });
    sender.held = true;

    const done = deliverDue(batch);
    await settle();
    expect(sender.inFlight).toBe(2);
    expect(slots.inUse).toBe(2);
    // The two not claimed are settled at once: their wake-ups have nothing left to do.
    expect(channel.settlements).toEqual([
      { tag: 3, outcome: 'ack' },
      { tag: 4, outcome: 'ack' },
    ]);

    sender.answerAll();
    await done;
    expect(sender.sent).toEqual(ids.slice(0, 2));
    expect(outcomes(channel)).toEqual(Array(4).fill('ack'));
    expect(slots.inUse).toBe(0);
  });

  it('re-delays an early arrival (or one whose account has no send rate left) for its remainder and acks its wake-up once that is published', async () => {
    const { store, sender, published, deliverDue, channel, wakeUps } = setUp({ capacity: 4, batchSize: 4 });
    const { ids, batch } = wakeUps(3);
    store.decide = (claimIds) => ({
      claimed: [aClaimed(claimIds[0])],
      early: [
        { id: claimIds[1], dueAt: new Date(Date.now() + 5000), remainingMs: 5000, reason: 'early' },
        { id: claimIds[2], dueAt: new Date(), remainingMs: 800, reason: 'send_rate' },
      ],
      cancelled: [],
      skipped: [],
    });

    await deliverDue(batch);

    expect(sender.sent).toEqual([ids[0]]);
    expect(published).toEqual([
      { ids: [ids[1]], reason: 'early' },
      { ids: [ids[2]], reason: 'send_rate' },
    ]);
    expect(outcomes(channel)).toEqual(['ack', 'ack', 'ack']);
  });

  it('when the worker stops between slices, claims nothing more, requeues the rest and frees every slot', async () => {
    const { store, sender, deliverDue, channel, wakeUps, slots } = setUp({ capacity: 10, batchSize: 2 });
    const { ids, batch } = wakeUps(5);
    let stopping = false;
    store.decide = (claimIds) => {
      stopping = true; // the stop comes while the first slice is in hand
      return { claimed: claimIds.map(aClaimed), early: [], cancelled: [], skipped: [] };
    };

    await deliverDue(batch, () => stopping);

    expect(store.claims.map((c) => c.ids)).toEqual([ids.slice(0, 2)]);
    // The slice in hand is finished: sent, recorded, acked; the rest comes again after the restart.
    expect(sender.sent).toEqual(ids.slice(0, 2));
    expect(store.recorded.map((o) => o.id)).toEqual(ids.slice(0, 2));
    expect(outcomes(channel)).toEqual(['ack', 'ack', 'requeue', 'requeue', 'requeue']);
    expect(slots.inUse).toBe(0);
  });

  it('when a claim fails, requeues that slice and the rest, claims nothing more, frees every slot and resolves', async () => {
    const { store, sender, deliverDue, channel, wakeUps, slots } = setUp({ capacity: 10, batchSize: 2 });
    const { ids, batch } = wakeUps(6);
    store.decide = (claimIds, call) => {
      if (call === 2) throw new Error('connection reset');
      return { claimed: claimIds.map(aClaimed), early: [], cancelled: [], skipped: [] };
    };

    await expect(deliverDue(batch)).resolves.toBeUndefined();

    expect(store.claims.map((c) => c.ids)).toEqual([ids.slice(0, 2), ids.slice(2, 4)]);
    expect(sender.sent).toEqual(ids.slice(0, 2));
    expect(outcomes(channel)).toEqual(['ack', 'ack', 'requeue', 'requeue', 'requeue', 'requeue']);
    expect(slots.inUse).toBe(0);
  });

  it('when recording the outcomes fails, requeues the wake-ups of the slice that was sent and frees its slots', async () => {
    const { store, sender, deliverDue, channel, wakeUps, slots } = setUp({ capacity: 10, batchSize: 3 });
    const { ids, batch } = wakeUps(3);
    store.recordOutcomes = () => Promise.reject(new Error('connection reset'));

    await deliverDue(batch);

    expect(sender.sent).toEqual(ids);
    expect(outcomes(channel)).toEqual(['requeue', 'requeue', 'requeue']);
    expect(slots.inUse).toBe(0);
  });
});
