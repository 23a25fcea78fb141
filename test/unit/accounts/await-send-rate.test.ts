import { createAwaitSendRate } from '../../../src/accounts/await-send-rate';
import type { Account } from '../../../src/accounts/account';

/** A registry whose accounts appear only at its next refresh (a notification still on the way). */
function aRegistry(now: string[], afterRefresh: string[]) {
  let known = new Set(now);
  const registry = {
    refreshes: 0,
    get: (appId: string) => (known.has(appId) ? ({ appId } as Account) : undefined),
    refresh: () => {
      registry.refreshes++;
      known = new Set(afterRefresh);
      return Promise.resolve();
    },
  };
  return registry;
}

/** A limiter per app id that counts what it granted. */
function countingLimiters() {
  const granted: string[] = [];
  return {
    granted,
    limiterFor: (appId: string) => ({ acquire: () => Promise.resolve(void granted.push(appId)) }),
  };
}

describe('awaitSendRate', () => {
  it('waits on the account’s limiter without re-reading an account it knows', async () => {
    const registry = aRegistry(['wxA'], ['wxA']);
    const { granted, limiterFor } = countingLimiters();
    await createAwaitSendRate(registry, limiterFor)('wxA');
    expect(granted).toEqual(['wxA']);
    expect(registry.refreshes).toBe(0);
  });

  it('reads the accounts once more for an account created a moment ago, then waits on its limiter', async () => {
    const registry = aRegistry([], ['wxNew']);
    const { granted, limiterFor } = countingLimiters();
    await createAwaitSendRate(registry, limiterFor)('wxNew');
    expect(registry.refreshes).toBe(1);
    expect(granted).toEqual(['wxNew']);
  });

  it('lets the send of a deleted account go on to fail as unknown, instead of throwing here', async () => {
    const registry = aRegistry([], []);
    const { granted, limiterFor } = countingLimiters();
    await expect(createAwaitSendRate(registry, limiterFor)('wxGone')).resolves.toBeUndefined();
    expect(granted).toEqual([]);
  });
});
