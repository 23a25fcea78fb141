import { setTimeout as sleep } from 'node:timers/promises';

/** How `retry` tries an operation again. */
export interface RetryOptions {
  /** Most attempts in all, the first included (`Infinity`: until it succeeds, fails for good, or is stopped). */
  readonly attempts: number;
  /** The wait in ms before retry number `retry` (0 for the first retry), before jitter. */
  readonly delayMs: (retry: number) => number;
  /**
   * The share of each wait that is random, 0 to 1 (default 0): a wait of `d` becomes one between
   * `d × (1 − jitter)` and `d`, so that processes that failed together do not all come back together.
   */
  readonly jitter?: number;
  /** Whether `err` may heal by trying again (before retry number `retry`); any other error is thrown at once. */
  readonly retryable: (err: unknown, retry: number) => boolean;
  /** Told of each error that is about to be retried, and of the wait before it. */
  readonly onRetry?: (err: unknown, retry: number, delayMs: number) => void;
  /** Once aborted, no attempt starts: a wait in progress ends, and the last error is thrown. */
  readonly signal?: AbortSignal;
  /** Jitter's randomness (a test passes its own). */
  readonly random?: () => number;
}

/**
 * Runs `fn` until it succeeds, retrying the errors `retryable` accepts after each wait of `delayMs`
 * (with jitter), at most `attempts` times in all and not once `signal` is aborted. Returns what `fn`
 * returned; throws the last error otherwise. The one retry loop of the code base.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const random = opts.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const last = attempt + 1 >= opts.attempts || opts.signal?.aborted === true;
      if (last || !opts.retryable(err, attempt)) throw err;
      const delayMs = Math.round(opts.delayMs(attempt) * (1 - (opts.jitter ?? 0) * random()));
      opts.onRetry?.(err, attempt, delayMs);
      try {
        await sleep(delayMs, undefined, opts.signal ? { signal: opts.signal } : undefined);
      } catch {
        throw err; // stopped while waiting
      }
    }
  }
}

/** Waits that double from `firstMs` up to `maxMs`, for `RetryOptions.delayMs`. */
export const exponentialBackoff =
  (firstMs: number, maxMs: number) =>
  (retry: number): number =>
    Math.min(maxMs, firstMs * 2 ** retry);
