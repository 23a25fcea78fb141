export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /**
   * Accounts that opted into at-least-once (`atLeastOnce`): a customer-service send whose answer was lost
   * is sent again rather than recorded `unknown`.
   */
  readonly atLeastOnceAppIds: readonly string[];
}

/**
 * Delay before attempt `attempts + 1`: exponential (base × 2^(attempts − 1), capped), with equal jitter
 * (half fixed, half random) so that a burst of failures does not come back as a burst.
 */
export function retryDelayMs(
  attempts: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

const CHINA_OFFSET_MS = 8 * 3600 * 1000;

/** WeChat's daily API quotas reset at 00:00 China Standard Time (UTC+8): the next such instant. */
export function nextQuotaReset(now: Date): Date {
  const shifted = new Date(now.getTime() + CHINA_OFFSET_MS);
  const nextMidnight = Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate() + 1);
  return new Date(nextMidnight - CHINA_OFFSET_MS);
}
