/** A refused take: how long until the key has a token again. */
export interface RateLimited {
  readonly retryAfterS: number;
}

/** Per-key token buckets, in this process's memory (each api process counts on its own). */
export interface RateLimiter {
  /** Takes a token for `key`: null when there was one, else how long to wait. */
  take(key: string): RateLimited | null;
  /** Null when `key` has a token left (none is taken), else how long until it has one. */
  blocked(key: string): RateLimited | null;
}

export interface RateLimiterOptions {
  /** Tokens a key gains per minute; also the burst a fresh key may spend at once. */
  readonly perMinute: number;
  /** Keys tracked at most: beyond it, the full buckets are forgotten (a forgotten key starts full). */
  readonly maxKeys?: number;
  readonly now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MINUTE_MS = 60_000;

/** A token bucket per key: `perMinute` tokens, refilled evenly over a minute. */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { perMinute, maxKeys = 10_000, now = Date.now } = opts;
  const buckets = new Map<string, Bucket>();
  const refillPerMs = perMinute / MINUTE_MS;
  const current = (key: string): Bucket => {
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: perMinute, at: t };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (t - bucket.at) * refillPerMs);
    bucket.at = t;
    return bucket;
  };
  const forgetFull = () => {
    for (const [key] of buckets) if (current(key).tokens >= perMinute) buckets.delete(key);
  };
  const wait = (bucket: Bucket): RateLimited | null =>
    bucket.tokens >= 1 ? null : { retryAfterS: Math.ceil((1 - bucket.tokens) / refillPerMs / 1000) };
  return {
    take(key) {
      const bucket = current(key);
      const refused = wait(bucket);
      if (refused) return refused;
      bucket.tokens -= 1;
      if (!buckets.has(key) && buckets.size >= maxKeys) {
        forgetFull();
        // Still full: the oldest key goes (it starts full when it comes back).
        if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
      }
      buckets.set(key, bucket);
      return null;
    },
    blocked: (key) => wait(current(key)),
  };
}
