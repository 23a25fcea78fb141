import { createPerAccountQueue } from '../../../src/scheduling/per-account-queue';

/** Work that records when it starts and finishes only when the test releases it. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  const work = async () => {
    log.push(`start ${name}`);
    await done;
    log.push(`end ${name}`);
    return name;
  };
  return { work, release };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('createPerAccountQueue', () => {
  it('runs the work of one account one at a time, in order, and that of another account beside it', async () => {
    const log: string[] = [];
    const queue = createPerAccountQueue();
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const answers = [queue('a', a1.work), queue('a', a2.work), queue('b', b1.work)];
    await settle();
    expect(log).toEqual(['start a1', 'start b1']);
    a1.release();
    await settle();
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    a2.release();
    b1.release();
    await expect(Promise.all(answers)).resolves.toEqual(['a1', 'a2', 'b1']);
  });

  it('goes on with the next work of the account when one fails, and the failure reaches only its caller', async () => {
    const queue = createPerAccountQueue();
    const failed = queue('a', () => Promise.reject(new Error('refused')));
    const next = queue('a', () => Promise.resolve('next'));
    await expect(failed).rejects.toThrow('refused');
    await expect(next).resolves.toBe('next');
  });
});
