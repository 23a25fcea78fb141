import type { Account } from '../../../src/accounts/account';
import type { ClaimedMessage } from '../../../src/store/claim-due';
import type { SendCount, SendReservation } from '../../../src/store/send-pacing';
import { createPaceSends } from '../../../src/worker/pace-sends';

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

let seq = 0;
const aClaimed = (appId: string, channel: 'custom' | 'template' = 'custom'): ClaimedMessage => ({
  id: `m${++seq}`,
  appId,
  openid: 'o1',
  channel,
  payload: {},
  dueAt: new Date(),
  attempts: 1,
  claimedAs: 'send',
  requestId: null,
});

/** A reserve that records what it was asked and answers the given reservations. */
function aReserve(answer: SendReservation[]) {
  const asked: SendCount[][] = [];
  return {
    asked,
    reserve: (counts: readonly SendCount[]) => {
      asked.push([...counts]);
      return Promise.resolve(answer);
    },
  };
}

describe('createPaceSends', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reserves once per claim, counting each account’s sends by channel', async () => {
    const { asked, reserve } = aReserve([]);
    const pace = createPaceSends({ reserve, accounts: aRegistry(['wxA', 'wxB'], []) });
    await pace([aClaimed('wxA'), aClaimed('wxB', 'template'), aClaimed('wxA', 'template'), aClaimed('wxA')]);
    expect(asked).toEqual([
      [
        { appId: 'wxA', custom: 2, template: 1 },
        { appId: 'wxB', custom: 0, template: 1 },
      ],
    ]);
  });

  it('gives each message of an account its own slot, in claim order, from the reservation’s start', async () => {
    let clock = 1000;
    const { reserve } = aReserve([{ appId: 'wxA', startInMs: -5, intervalMs: 10 }]);
    const pace = createPaceSends({ reserve, accounts: aRegistry(['wxA'], []), now: () => clock });
    const messages = [aClaimed('wxA'), aClaimed('wxA'), aClaimed('wxA')];
    const awaitTurn = await pace(messages);

    const done: number[] = [];
    messages.forEach((m, i) => void awaitTurn(m).then(() => done.push(i)));
    await Promise.resolve();
    expect(done).toEqual([0]); // its slot (-5 ms) has passed: at once
    clock += 5;
    await jest.advanceTimersByTimeAsync(5);
    expect(done).toEqual([0, 1]); // +5 ms
    clock += 10;
    await jest.advanceTimersByTimeAsync(10);
    expect(done).toEqual([0, 1, 2]); // +15 ms
  });

  it('reads the registry once more for an account it does not know yet, before reserving', async () => {
    const registry = aRegistry([], ['wxNew']);
    const pace = createPaceSends({ reserve: aReserve([]).reserve, accounts: registry });
    await pace([aClaimed('wxNew')]);
    expect(registry.refreshes).toBe(1);
    await pace([aClaimed('wxNew')]);
    expect(registry.refreshes).toBe(1);
  });

  it('does not hold the sends of an account without a reservation (deleted meanwhile)', async () => {
    const pace = createPaceSends({ reserve: aReserve([]).reserve, accounts: aRegistry([], []) });
    const gone = aClaimed('wxGone');
    await expect((await pace([gone]))(gone)).resolves.toBeUndefined();
  });

  it('asks nothing of the database for an empty claim', async () => {
    const { asked, reserve } = aReserve([]);
    await createPaceSends({ reserve, accounts: aRegistry([], []) })([]);
    expect(asked).toEqual([]);
  });
});
