import { randomUUID } from 'node:crypto';
import { type Delivery, trackAcks } from '../../../src/worker/ack-tracker';
import { createBatcher } from '../../../src/worker/batcher';
import { silentLogger } from '../../helpers/logger';
import { FakeChannel } from './fake-channel';

const ids = (count: number) => Array.from({ length: count }, () => randomUUID());

/** A batch handed over, held until the test finishes it. */
interface HeldBatch {
  readonly deliveries: Delivery[];
  readonly stopping: () => boolean;
  /** Marks every id done (the batch's wake-ups get acked) and lets the handler return. */
  finish(): void;
  fail(err: Error): void;
}

/** A batch handler that holds each batch until the test finishes it, and says when one arrives. */
function heldBatches() {
  const held: HeldBatch[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const onBatch = (deliveries: Delivery[], stopping: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      held.push({
        deliveries,
        stopping,
        finish: () => {
          const acks = trackAcks(deliveries, () => undefined);
          for (const id of acks.ids) acks.done(id);
          resolve();
        },
        fail: reject,
      });
      for (const w of waiters.filter((w) => held.length >= w.count)) w.resolve();
    });
  /** Resolves once `count` batches were handed over. */
  const untilHeld = (count: number) =>
    held.length >= count
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  return { held, onBatch, untilHeld };
}

const settings = { batchSize: 4, batchWaitMs: 5, maxConcurrentBatches: 1, logger: silentLogger };

describe('batcher', () => {
  it('an idle worker hands a delivery over at once: there is no claim in flight to wait for', () => {
    const channel = new FakeChannel();
    const { held, onBatch } = heldBatches();
    const batcher = createBatcher({ ...settings, batchWaitMs: 60_000, onBatch });

    batcher.add(channel.deliver(ids(1)));

    expect(held.map((b) => b.deliveries.length)).toEqual([1]);
    held[0].finish();
    return batcher.stop();
  });

  it('while a batch runs, hands the next over as soon as it holds batchSize messages, counting every id of a wake-up', async () => {
    const channel = new FakeChannel();
    const { held, onBatch } = heldBatches();
    const batcher = createBatcher({ ...settings, batchWaitMs: 60_000, maxConcurrentBatches: 2, onBatch });
    batcher.add(channel.deliver(ids(1)));

    batcher.add(channel.deliver(ids(3)));
    expect(held).toHaveLength(1);
    batcher.add(channel.deliver(ids(1)));

    expect(held.map((b) => b.deliveries.length)).toEqual([1, 2]);
    for (const b of held) b.finish();
    await batcher.stop();
  });

  it('while a batch runs, hands over the next that did not fill once batchWaitMs has passed', async () => {
    const channel = new FakeChannel();
    const { held, onBatch, untilHeld } = heldBatches();
    const batcher = createBatcher({ ...settings, maxConcurrentBatches: 2, onBatch });
    batcher.add(channel.deliver(ids(1)));

    batcher.add(channel.deliver(ids(1)));
    expect(held).toHaveLength(1);
    await untilHeld(2);

    expect(held[1].deliveries).toHaveLength(1);
    for (const b of held) b.finish();
    await batcher.stop();
    expect(channel.settlements).toEqual([
      { tag: 1, outcome: 'ack' },
      { tag: 2, outcome: 'ack' },
    ]);
  });

  it('never runs more than maxConcurrentBatches; the rest wait unclaimed until one finishes', async () => {
    const channel = new FakeChannel();
    const { held, onBatch, untilHeld } = heldBatches();
    const batcher = createBatcher({ ...settings, onBatch });

    batcher.add(channel.deliver(ids(4)));
    batcher.add(channel.deliver(ids(4)));
    expect(held).toHaveLength(1);
    held[0].finish();
    await untilHeld(2);

    expect(held[1].deliveries).toHaveLength(1);
    held[1].finish();
    await batcher.stop();
    expect(channel.settlements.map((s) => s.outcome)).toEqual(['ack', 'ack']);
  });

  it('when stopped mid-batch, requeues what was not started at once, finishes the batch in hand, and hands back later arrivals', async () => {
    const channel = new FakeChannel();
    const { held, onBatch } = heldBatches();
    const batcher = createBatcher({ ...settings, onBatch });
    batcher.add(channel.deliver(ids(4)));
    batcher.add(channel.deliver(ids(2)));
    batcher.add(channel.deliver(ids(2)));
    expect(held[0].stopping()).toBe(false);

    let stopped = false;
    const stopping = batcher.stop().then(() => (stopped = true));
    batcher.add(channel.deliver(ids(1)));

    expect(held[0].stopping()).toBe(true);
    expect(channel.settlements).toEqual([
      { tag: 2, outcome: 'requeue' },
      { tag: 3, outcome: 'requeue' },
      { tag: 4, outcome: 'requeue' },
    ]);
    await Promise.resolve();
    expect(stopped).toBe(false);
    held[0].finish();
    await stopping;
    expect(channel.settlements).toContainEqual({ tag: 1, outcome: 'ack' });
    expect(held).toHaveLength(1);
  });

  it('requeues the wake-ups of a batch whose handler rejects', async () => {
    const channel = new FakeChannel();
    const { held, onBatch } = heldBatches();
    const batcher = createBatcher({ ...settings, onBatch });
    batcher.add(channel.deliver(ids(2)));
    batcher.add(channel.deliver(ids(2)));
    expect(held.map((b) => b.deliveries.length)).toEqual([1]);

    held[0].fail(new Error('boom'));
    await batcher.stop();

    expect(channel.settlements).toEqual([
      { tag: 2, outcome: 'requeue' }, // not started, handed back by stop
      { tag: 1, outcome: 'requeue' },
    ]);
  });
});
