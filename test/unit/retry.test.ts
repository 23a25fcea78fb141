import { exponentialBackoff, retry } from '../../src/retry';

/** An operation that fails with `errors`, in order, then answers 'done'; it counts its calls. */
function failing(...errors: Error[]) {
  const op = { calls: 0, run: () => Promise.resolve('') };
  op.run = () => {
    const err = errors[op.calls++];
    return err ? Promise.reject(err) : Promise.resolve('done');
  };
  return op;
}

const busy = () => new Error('busy');
const always = () => true;

describe('retry', () => {
  it('retries an error that may heal, waiting delayMs before each retry, and returns the answer', async () => {
    const op = failing(busy(), busy());
    const waits: number[] = [];
    const answer = await retry(op.run, {
      attempts: 5,
      delayMs: (n) => (n + 1) * 5,
      retryable: always,
      onRetry: (_err, _n, delayMs) => waits.push(delayMs),
    });
    expect(answer).toBe('done');
    expect(op.calls).toBe(3);
    expect(waits).toEqual([5, 10]);
  });

  it('throws an error that cannot heal at once, without retrying', async () => {
    const refused = new Error('refused');
    const op = failing(refused);
    await expect(
      retry(op.run, { attempts: 5, delayMs: () => 1, retryable: (e) => e !== refused }),
    ).rejects.toBe(refused);
    expect(op.calls).toBe(1);
  });

  it('gives up after `attempts` in all, throwing the last error', async () => {
    const last = busy();
    const op = failing(busy(), busy(), last, busy());
    await expect(retry(op.run, { attempts: 3, delayMs: () => 1, retryable: always })).rejects.toBe(last);
    expect(op.calls).toBe(3);
  });

  it('with jitter, waits a random share less, never more', async () => {
    const waits: number[] = [];
    const options = {
      attempts: 3,
      delayMs: () => 40,
      jitter: 0.5,
      retryable: always,
      onRetry: (_e: unknown, _n: number, ms: number) => waits.push(ms),
    };
    await retry(failing(busy(), busy()).run, { ...options, random: () => 1 });
    await retry(failing(busy()).run, { ...options, random: () => 0 });
    expect(waits).toEqual([20, 20, 40]);
  });

  it('stops when the signal is aborted: the wait ends and the last error is thrown, no attempt follows', async () => {
    const stop = new AbortController();
    const err = busy();
    const op = failing(err, busy());
    const started = Date.now();
    const run = retry(op.run, { attempts: 5, delayMs: () => 60_000, retryable: always, signal: stop.signal });
    setTimeout(() => stop.abort(), 10);
    await expect(run).rejects.toBe(err);
    expect(op.calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('exponentialBackoff doubles from the first wait up to the longest', () => {
    const delay = exponentialBackoff(250, 1000);
    expect([0, 1, 2, 3, 60].map(delay)).toEqual([250, 500, 1000, 1000, 1000]);
  });
});
