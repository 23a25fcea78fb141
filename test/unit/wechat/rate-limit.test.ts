import { AppError } from '../../../src/errors';
import {
  createAccountRateLimiters,
  createRateLimiter,
  type RateLimiter,
} from '../../../src/wechat/rate-limit';

/** Starts `n` acquisitions and records the order in which they are granted. */
function acquireMany(limiter: RateLimiter, n: number): number[] {
  const granted: number[] = [];
  for (let i = 0; i < n; i++) void limiter.acquire().then(() => granted.push(i));
  return granted;
}

async function advance(ms: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(ms);
}

describe('createRateLimiter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('grants a full second of burst at once and makes the next caller wait for a new token', async () => {
    const granted = acquireMany(createRateLimiter(5), 6);
    await advance(0);
    expect(granted).toEqual([0, 1, 2, 3, 4]);
    await advance(199);
    expect(granted).toHaveLength(5);
    await advance(1);
    expect(granted).toHaveLength(6);
  });

  it('once the burst is spent, grants at the configured rate', async () => {
    const granted = acquireMany(createRateLimiter(10), 40);
    await advance(0);
    expect(granted).toHaveLength(10);
    await advance(1000);
    expect(granted).toHaveLength(20);
    await advance(1000);
    expect(granted).toHaveLength(30);
  });

  it('serves waiters in the order they arrived', async () => {
    const limiter = createRateLimiter(2);
    const granted = acquireMany(limiter, 8);
    await advance(5000);
    expect(granted).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('refills while idle, but never beyond one second of burst', async () => {
    const limiter = createRateLimiter(3);
    acquireMany(limiter, 3);
    await advance(10_000);
    const granted = acquireMany(limiter, 4);
    await advance(0);
    expect(granted).toEqual([0, 1, 2]);
  });

  it('leaves no timer behind when nobody waits', async () => {
    const limiter = createRateLimiter(4);
    acquireMany(limiter, 3);
    expect(jest.getTimerCount()).toBe(0);
    const granted = acquireMany(limiter, 3);
    expect(jest.getTimerCount()).toBe(1);
    await advance(1000);
    expect(granted).toHaveLength(3);
    expect(jest.getTimerCount()).toBe(0);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the rate %p', (rate) => {
    expect(() => createRateLimiter(rate)).toThrow(RangeError);
  });
});

describe('createAccountRateLimiters', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives each account its own bucket at its own rate', async () => {
    const rates = new Map([
      ['wxA', 1],
      ['wxB', 3],
    ]);
    const limiterFor = createAccountRateLimiters((appId) => rates.get(appId));
    const a = acquireMany(limiterFor('wxA'), 3);
    const b = acquireMany(limiterFor('wxB'), 3);
    await advance(0);
    expect([a.length, b.length]).toEqual([1, 3]);
    expect(limiterFor('wxA')).toBe(limiterFor('wxA'));
  });

  it('follows a changed rate with a fresh bucket at the new rate', async () => {
    let rate = 1;
    const limiterFor = createAccountRateLimiters(() => rate);
    const before = limiterFor('wxA');
    rate = 5;
    const after = acquireMany(limiterFor('wxA'), 5);
    await advance(0);
    expect(limiterFor('wxA')).not.toBe(before);
    expect(after.length).toBe(5);
  });

  it('refuses an account that is not configured', () => {
    const limiterFor = createAccountRateLimiters((appId) => (appId === 'wxA' ? 1 : undefined));
    expect(() => limiterFor('wxZ')).toThrow(expect.objectContaining({ code: 'unknown_account' }) as AppError);
  });
});
