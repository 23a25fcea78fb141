import { createRateLimiter } from '../../../src/http/rate-limit';

describe('createRateLimiter', () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('gives a key its burst, then refuses with the seconds until a token is back', () => {
    const c = clock();
    const limiter = createRateLimiter({ perMinute: 3, now: c.now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([null, null, null]);
    expect(limiter.take('a')).toEqual({ retryAfterS: 20 });
    expect(limiter.blocked('a')).toEqual({ retryAfterS: 20 });
    expect(limiter.take('b')).toBeNull();
    c.advance(20_000);
    expect(limiter.blocked('a')).toBeNull();
    expect(limiter.take('a')).toBeNull();
    expect(limiter.take('a')).toEqual({ retryAfterS: 20 });
  });

  it('refills no further than the burst', () => {
    const c = clock();
    const limiter = createRateLimiter({ perMinute: 2, now: c.now });
    limiter.take('a');
    c.advance(10 * 60_000);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([
      null,
      null,
      { retryAfterS: 30 },
    ]);
  });

  it('tracks at most maxKeys keys: full buckets are forgotten first, then the oldest', () => {
    const c = clock();
    const limiter = createRateLimiter({ perMinute: 1, maxKeys: 2, now: c.now });
    limiter.take('a');
    limiter.take('b');
    limiter.take('c'); // `a` is forgotten: it starts full again
    expect(limiter.take('a')).toBeNull();
    expect(limiter.take('c')).toEqual({ retryAfterS: 60 });
  });
});
