import { AppError } from '../errors';

/** Paces sends: `acquire` resolves when one more send may go out. */
export interface RateLimiter {
  acquire(): Promise<void>;
}

/**
 * A token bucket of `ratePerSecond` tokens per second holding at most `ratePerSecond` (a one-second
 * burst). Waiters are served strictly in arrival order. A timer runs only while someone waits, so an idle
 * limiter keeps nothing alive. `now` (ms, monotonic) is injectable for tests.
 */
export function createRateLimiter(
  ratePerSecond: number,
  now: () => number = () => performance.now(),
): RateLimiter {
  if (!(Number.isFinite(ratePerSecond) && ratePerSecond > 0)) {
    throw new RangeError(`ratePerSecond must be a positive number, got ${ratePerSecond}`);
  }
  const burst = ratePerSecond;
  let available = burst;
  let refilledAt = now();
  // FIFO as an array plus a head index: shift() is O(n) and queues can get long during a burst.
  let waiters: (() => void)[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | null = null;

  function refill(): void {
    const at = now();
    available = Math.min(burst, available + ((at - refilledAt) * ratePerSecond) / 1000);
    refilledAt = at;
  }

  function serve(): void {
    timer = null;
    refill();
    while (head < waiters.length && available >= 1) {
      available -= 1;
      waiters[head++]();
    }
    if (head === waiters.length) {
      waiters = [];
      head = 0;
      return;
    }
    if (head > 1024) {
      waiters = waiters.slice(head);
      head = 0;
    }
    const waitMs = Math.max(1, Math.ceil(((1 - available) * 1000) / ratePerSecond));
    timer = setTimeout(serve, waitMs);
  }

  return {
    acquire() {
      if (head === waiters.length) {
        refill();
        if (available >= 1) {
          available -= 1;
          return Promise.resolve();
        }
      }
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        if (timer === null) serve();
      });
    },
  };
}

/**
 * One limiter per account at the rate `rateOf` gives now (undefined: no such account, an error). A changed
 * rate takes a fresh bucket. `rateOf` is the one place the limit reads an account's rate.
 */
export function createAccountRateLimiters(
  rateOf: (appId: string) => number | undefined,
): (appId: string) => RateLimiter {
  const limiters = new Map<string, { rate: number; limiter: RateLimiter }>();
  return (appId) => {
    const rate = rateOf(appId);
    if (rate === undefined) {
      throw new AppError('unknown_account', `no WeChat account ${appId} is configured`, { httpStatus: 400 });
    }
    let entry = limiters.get(appId);
    if (entry?.rate !== rate) {
      entry = { rate, limiter: createRateLimiter(rate) };
      limiters.set(appId, entry);
    }
    return entry.limiter;
  };
}
