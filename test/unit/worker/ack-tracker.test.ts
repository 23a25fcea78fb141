import { randomUUID } from 'node:crypto';
import { trackAcks } from '../../../src/worker/ack-tracker';
import { FakeChannel } from './fake-channel';

const ids = (count: number) => Array.from({ length: count }, () => randomUUID());
const noPoison = () => {
  throw new Error('no delivery of this test is poison');
};

describe('trackAcks', () => {
  it('acks a wake-up carrying several ids only once all of them are done', () => {
    const channel = new FakeChannel();
    const [a, b, c] = ids(3);
    const acks = trackAcks([channel.deliver([a, b, c])], noPoison);

    acks.done(a);
    acks.done(b);
    expect(channel.settlements).toEqual([]);
    acks.done(c);

    expect(channel.settlements).toEqual([{ tag: 1, outcome: 'ack' }]);
  });

  it('lists each id once when it comes in two wake-ups, and acks each wake-up when its own ids are done', () => {
    const channel = new FakeChannel();
    const [a, b] = ids(2);
    const acks = trackAcks([channel.deliver([a, b]), channel.deliver([b], { redelivered: true })], noPoison);
    expect(acks.ids).toEqual([a, b]);

    acks.done(b);
    expect(channel.settlements).toEqual([{ tag: 2, outcome: 'ack' }]);
    acks.done(a);

    expect(channel.settlements).toEqual([
      { tag: 2, outcome: 'ack' },
      { tag: 1, outcome: 'ack' },
    ]);
    expect(channel.errors).toEqual([]);
  });

  it('requeues every wake-up of an id that must come again, and settles none of them a second time', () => {
    const channel = new FakeChannel();
    const [a, b] = ids(2);
    const acks = trackAcks([channel.deliver([a, b]), channel.deliver([b])], noPoison);

    acks.redeliver(b);
    acks.done(a);
    acks.done(b);
    acks.redeliverAll();

    expect(channel.settlements).toEqual([
      { tag: 1, outcome: 'requeue' },
      { tag: 2, outcome: 'requeue' },
    ]);
    expect(channel.errors).toEqual([]);
    expect(channel.isOpen).toBe(true);
  });

  it("says when each id was ready: the later of its wake-up's arrival and due time, the earliest wake-up's", () => {
    const channel = new FakeChannel();
    const [early, late, both] = ids(3);
    const dueSoon = Date.now() + 60_000;
    const longDue = Date.now() - 60_000;
    const deliveries = [
      channel.deliver([early, both], { dueAt: dueSoon }),
      channel.deliver([late, both], { dueAt: longDue }),
    ];
    const acks = trackAcks(deliveries, noPoison);

    expect(acks.readyAt(early)).toBe(dueSoon); // came before its due time: ready when due
    expect(acks.readyAt(late)).toBe(deliveries[1].receivedAt); // came overdue: ready on arrival
    expect(acks.readyAt(both)).toBe(deliveries[1].receivedAt);
    expect(acks.readyAt(randomUUID())).toBeNaN();
  });

  it('dead-letters a body that is not a wake-up at once and leaves it out of the ids', () => {
    const channel = new FakeChannel();
    const [a] = ids(1);
    const onPoison = jest.fn();
    const acks = trackAcks([channel.deliver('not json'), channel.deliver([a])], onPoison);

    expect(onPoison).toHaveBeenCalledTimes(1);
    expect(channel.settlements).toEqual([{ tag: 1, outcome: 'dead-letter' }]);
    expect(acks.ids).toEqual([a]);
  });

  it('when stopping mid-batch, acks the wake-ups whose ids are all done and requeues the rest', () => {
    const channel = new FakeChannel();
    const [a, b, c, d] = ids(4);
    const acks = trackAcks(
      [channel.deliver([a, b]), channel.deliver([b, c]), channel.deliver([d])],
      noPoison,
    );

    // The first slice (a, b) was claimed and finished; the worker stops before claiming c and d.
    acks.done(a);
    acks.done(b);
    acks.redeliverAll();

    expect(channel.settlements).toEqual([
      { tag: 1, outcome: 'ack' },
      { tag: 2, outcome: 'requeue' },
      { tag: 3, outcome: 'requeue' },
    ]);
    expect(channel.errors).toEqual([]);
  });

  describe('when the channel closes mid-batch', () => {
    it('settles nothing on the dead channel and does not throw', () => {
      const channel = new FakeChannel();
      const [a, b] = ids(2);
      const acks = trackAcks([channel.deliver([a]), channel.deliver([b])], noPoison);

      acks.done(a);
      channel.close();

      expect(() => acks.done(b)).not.toThrow();
      expect(() => acks.redeliverAll()).not.toThrow();
      expect(channel.settlements).toEqual([{ tag: 1, outcome: 'ack' }]);
    });

    it('acks the redelivered copy on the new channel by its own tag, never the old one', () => {
      const first = new FakeChannel();
      const [a, b] = ids(2);
      first.deliver([a]);
      const lost = trackAcks([first.deliver([b])], noPoison);
      first.close();
      lost.done(b);

      const second = new FakeChannel();
      const again = trackAcks([second.deliver([b], { redelivered: true })], noPoison);
      again.done(b);

      expect(first.settlements).toEqual([]);
      expect(second.settlements).toEqual([{ tag: 1, outcome: 'ack' }]);
      expect(second.errors).toEqual([]);
    });
  });
});
