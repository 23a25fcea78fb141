import { createCoalescer, WithdrawnError } from '../../src/coalescer';

/** A `run` whose batches the test releases by hand; it records every batch it was given. */
function controlledRun(fail: (items: readonly number[]) => Error | null = () => null) {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  const run = (items: readonly number[]) => {
    batches.push([...items]);
    return new Promise<number[]>((resolve, reject) => {
      pending.push(() => {
        const err = fail(items);
        if (err) reject(err);
        else resolve(items.map((i) => i * 10));
      });
    });
  };
  const releaseAll = async () => {
    while (pending.length > 0) {
      for (const release of pending.splice(0)) release();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { run, batches, releaseAll };
}

describe('createCoalescer', () => {
  it('runs a lone submission at once, alone, and gives its caller its result', async () => {
    const c = controlledRun();
    const coalescer = createCoalescer({
      maxBatch: 10,
      maxConcurrent: 1,
      run: c.run,
      splitOnError: () => true,
    });
    const answer = coalescer.submit(7);
    expect(c.batches).toEqual([[7]]);
    await c.releaseAll();
    await expect(answer).resolves.toBe(70);
  });

  it('gathers what is submitted while the batches run into the next batches (up to maxBatch), each caller getting its own result', async () => {
    const c = controlledRun();
    const coalescer = createCoalescer({
      maxBatch: 3,
      maxConcurrent: 1,
      run: c.run,
      splitOnError: () => true,
    });
    const answers = [1, 2, 3, 4, 5, 6].map((i) => coalescer.submit(i));
    expect(c.batches).toEqual([[1]]);
    await c.releaseAll();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20, 30, 40, 50, 60]);
    expect(c.batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('with weight, counts maxBatch in what the items weigh, and always takes at least one item', async () => {
    const c = controlledRun();
    const coalescer = createCoalescer({
      maxBatch: 10,
      maxConcurrent: 1,
      weight: (i: number) => i,
      run: c.run,
      splitOnError: () => true,
    });
    const answers = [1, 4, 5, 2, 12, 3].map((i) => coalescer.submit(i));
    await c.releaseAll();
    await expect(Promise.all(answers)).resolves.toEqual([10, 40, 50, 20, 120, 30]);
    expect(c.batches).toEqual([[1], [4, 5], [2], [12], [3]]);
  });

  it('runs up to maxConcurrent batches at once', () => {
    const c = controlledRun();
    const coalescer = createCoalescer({
      maxBatch: 10,
      maxConcurrent: 2,
      run: c.run,
      splitOnError: () => true,
    });
    for (const i of [1, 2, 3, 4]) void coalescer.submit(i);
    expect(c.batches).toEqual([[1], [2]]);
  });

  it('when a batch fails with an error splitOnError accepts, runs each item again alone: only the bad item fails', async () => {
    const bad = new Error('refused');
    const c = controlledRun((items) => (items.includes(3) ? bad : null));
    const coalescer = createCoalescer({
      maxBatch: 10,
      maxConcurrent: 1,
      run: c.run,
      splitOnError: (err) => err === bad,
    });
    const answers = Promise.allSettled([1, 2, 3, 4].map((i) => coalescer.submit(i)));
    await c.releaseAll();
    const settled = await answers;
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      10,
      20,
      'refused',
      40,
    ]);
    expect(c.batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('when a batch fails otherwise (an outage), fails every caller of it and runs none of them again', async () => {
    const outage = new Error('connection terminated');
    const c = controlledRun((items) => (items.length > 1 ? outage : null));
    const coalescer = createCoalescer({
      maxBatch: 10,
      maxConcurrent: 1,
      run: c.run,
      splitOnError: (err) => err !== outage,
    });
    const answers = Promise.allSettled([1, 2, 3].map((i) => coalescer.submit(i)));
    await c.releaseAll();
    const settled = await answers;
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(c.batches).toEqual([[1], [2, 3]]);
  });

  it('with fillWaitMs, starts an idle batch at once and lets the next wait that long to fill', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const c = controlledRun();
      const coalescer = createCoalescer({
        maxBatch: 3,
        maxConcurrent: 2,
        fillWaitMs: 50,
        run: c.run,
        splitOnError: () => false,
      });
      void coalescer.submit(1);
      void coalescer.submit(2);
      expect(c.batches).toEqual([[1]]);
      jest.advanceTimersByTime(49);
      expect(c.batches).toEqual([[1]]);
      jest.advanceTimersByTime(1);
      expect(c.batches).toEqual([[1], [2]]);
      for (const i of [3, 4, 5]) void coalescer.submit(i);
      expect(c.batches).toEqual([[1], [2]]);
      await c.releaseAll();
      expect(c.batches).toEqual([[1], [2], [3, 4, 5]]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('withdraw takes back what has not started (its callers rejected); idle waits for the batches in hand', async () => {
    const c = controlledRun();
    const coalescer = createCoalescer({
      maxBatch: 10,
      maxConcurrent: 1,
      run: c.run,
      splitOnError: () => false,
    });
    const first = coalescer.submit(1);
    const later = Promise.allSettled([2, 3].map((i) => coalescer.submit(i)));
    expect(coalescer.withdraw()).toEqual([2, 3]);
    expect((await later).map((s) => s.status === 'rejected' && s.reason instanceof WithdrawnError)).toEqual([
      true,
      true,
    ]);
    let idle = false;
    const waiting = coalescer.idle().then(() => (idle = true));
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    await c.releaseAll();
    await waiting;
    await expect(first).resolves.toBe(10);
    expect(c.batches).toEqual([[1]]);
  });
});
