import { createSendSlots } from '../../../src/worker/send-slots';

describe('send slots', () => {
  it('hands out what is free, up to what is asked', async () => {
    const slots = createSendSlots(5);
    expect(await slots.acquireUpTo(3)).toBe(3);
    expect(await slots.acquireUpTo(3)).toBe(2);
    expect(slots.inUse).toBe(5);
  });

  it('makes a caller wait while none is free, and serves waiters in arrival order', async () => {
    const slots = createSendSlots(2);
    await slots.acquireUpTo(2);
    const served: string[] = [];
    const first = slots.acquireUpTo(2).then((n) => served.push(`first ${n}`));
    const second = slots.acquireUpTo(1).then((n) => served.push(`second ${n}`));
    await Promise.resolve();
    expect(served).toEqual([]);
    slots.release(1);
    await first;
    expect(served).toEqual(['first 1']);
    slots.release(1);
    await second;
    expect(served).toEqual(['first 1', 'second 1']);
    expect(slots.inUse).toBe(2);
  });

  it('does not let a newcomer overtake a waiter', async () => {
    const slots = createSendSlots(1);
    await slots.acquireUpTo(1);
    const waiting = slots.acquireUpTo(1);
    slots.release(1);
    expect(await waiting).toBe(1);
    let late = false;
    const newcomer = slots.acquireUpTo(1).then(() => (late = true));
    await Promise.resolve();
    expect(late).toBe(false);
    slots.release(1);
    await newcomer;
    expect(late).toBe(true);
  });

  it('refuses to give back more than was taken', async () => {
    const slots = createSendSlots(3);
    await slots.acquireUpTo(1);
    expect(() => slots.release(2)).toThrow(RangeError);
    expect(slots.inUse).toBe(1);
  });

  it('refuses a capacity or a request that is not a positive integer', () => {
    expect(() => createSendSlots(0)).toThrow(RangeError);
    expect(() => createSendSlots(1).acquireUpTo(0)).toThrow(RangeError);
  });
});
