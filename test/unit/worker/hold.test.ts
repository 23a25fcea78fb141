import { randomUUID } from 'node:crypto';
import type { Delivery } from '../../../src/worker/ack-tracker';
import { createHold } from '../../../src/worker/hold';
import { FakeChannel } from './fake-channel';

const MAX_HOLD_MS = 200;

/** A hold whose released deliveries are recorded with the (fake) time they were released at. */
function aHold() {
  const released: { delivery: Delivery; at: number }[] = [];
  const hold = createHold({
    maxHoldMs: MAX_HOLD_MS,
    release: (delivery) => released.push({ delivery, at: Date.now() }),
  });
  return { hold, released };
}

beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
afterEach(() => jest.useRealTimers());

describe('hold', () => {
  it('holds a wake-up that arrived early, unacknowledged, and passes it on at its due time', () => {
    const channel = new FakeChannel();
    const { hold, released } = aHold();
    const dueAt = Date.now() + 150;

    hold.add(channel.deliver([randomUUID()], { dueAt }));
    jest.advanceTimersByTime(149);
    expect(released).toHaveLength(0);
    expect(hold.size).toBe(1);
    expect(channel.settlements).toEqual([]);

    jest.advanceTimersByTime(1);
    expect(released.map((r) => r.at)).toEqual([dueAt]);
    expect(hold.size).toBe(0);
    expect(channel.settlements).toEqual([]); // settling is the batch's business, after the send
  });

  it('passes on at once a wake-up already due, and a body that is not a wake-up (to be dead-lettered)', () => {
    const channel = new FakeChannel();
    const { hold, released } = aHold();

    hold.add(channel.deliver([randomUUID()], { dueAt: Date.now() - 5 }));
    hold.add(channel.deliver('not json'));

    expect(released).toHaveLength(2);
    expect(hold.size).toBe(0);
  });

  it('does not hold a wake-up due further ahead than maxHoldMs: it goes on, and the claim re-delays it', () => {
    const channel = new FakeChannel();
    const { hold, released } = aHold();

    hold.add(channel.deliver([randomUUID()], { dueAt: Date.now() + MAX_HOLD_MS + 1 }));
    hold.add(channel.deliver([randomUUID()], { dueAt: Date.now() + 3_600_000 }));

    expect(released).toHaveLength(2);
    expect(hold.size).toBe(0);
  });

  it('when stopped, hands every held wake-up back to the broker and never passes it on', () => {
    const channel = new FakeChannel();
    const { hold, released } = aHold();
    hold.add(channel.deliver([randomUUID()], { dueAt: Date.now() + 100 }));
    hold.add(channel.deliver([randomUUID()], { dueAt: Date.now() + 180 }));

    hold.stop();
    hold.add(channel.deliver([randomUUID()], { dueAt: Date.now() + 50 }));
    jest.advanceTimersByTime(1000);

    expect(released).toHaveLength(0);
    expect(hold.size).toBe(0);
    expect(channel.settlements).toEqual([
      { tag: 1, outcome: 'requeue' },
      { tag: 2, outcome: 'requeue' },
      { tag: 3, outcome: 'requeue' },
    ]);
  });

  it('after a lost channel, the redelivered copy goes on once due, and settling the stale copy harms nothing', () => {
    const lost = new FakeChannel();
    const { hold, released } = aHold();
    const ids = [randomUUID()];
    const dueAt = Date.now() + 100;
    hold.add(lost.deliver(ids, { dueAt }));
    lost.close(); // the connection dropped: the broker requeues what this channel held

    const next = new FakeChannel();
    jest.advanceTimersByTime(120);
    hold.add(next.deliver(ids, { dueAt, redelivered: true }));

    // Both copies reach the batch; the claim lets one row be sent once (see the worker's integration tests).
    expect(released.map((r) => r.delivery.redelivered)).toEqual([false, true]);
    for (const { delivery } of released) delivery.ack();
    expect(next.settlements).toEqual([{ tag: 1, outcome: 'ack' }]);
    expect(next.errors).toEqual([]);
  });
});
