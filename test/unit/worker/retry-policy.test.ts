import { nextQuotaReset, retryDelayMs } from '../../../src/worker/retry-policy';

const policy = { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 60_000, atLeastOnceAppIds: [] };

describe('retryDelayMs', () => {
  it('doubles per attempt, between half and all of the exponential delay', () => {
    expect(retryDelayMs(1, policy, () => 0)).toBe(500);
    expect(retryDelayMs(1, policy, () => 1)).toBe(1000);
    expect(retryDelayMs(3, policy, () => 0)).toBe(2000);
    expect(retryDelayMs(3, policy, () => 1)).toBe(4000);
  });

  it('never exceeds the maximum delay', () => {
    expect(retryDelayMs(30, policy, () => 1)).toBe(60_000);
  });
});

describe('nextQuotaReset', () => {
  it('is the next midnight in China (UTC+8)', () => {
    expect(nextQuotaReset(new Date('2026-11-21T15:00:00Z')).toISOString()).toBe('2026-11-21T16:00:00.000Z');
    expect(nextQuotaReset(new Date('2026-11-21T16:00:00Z')).toISOString()).toBe('2026-11-22T16:00:00.000Z');
    expect(nextQuotaReset(new Date('2026-12-31T17:00:00Z')).toISOString()).toBe('2027-01-01T16:00:00.000Z');
  });
});
