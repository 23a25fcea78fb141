import type { Publisher } from '../../src/broker/publisher';
import type { WakeUp } from '../../src/broker/wake-up';
import { createRelay, type Relay } from '../../src/scheduling/relay';
import { createTestDb, type TestDb } from '../helpers/db';
import { silentLogger } from '../helpers/logger';
import { aNewMessage, aRelayOptions } from '../helpers/builders';
import { seedMessages } from '../helpers/seed';

// A broker restart can strand wake-ups in the delay levels for minutes (RabbitMQ's at-least-once
// dead-lettering finds no route while it is still recovering bindings, and retries after 180 s). The
// chaos suite shows it end to end; this pins down the relay's answer to it.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());
afterEach(() => db.pool.query('DELETE FROM scheduled_messages'));

/** A relay with the production thresholds (overdue sweep at 5 min) and a publisher that only records. */
function relayAfterReconnect(reconnectedSecondsAgo: number | null): { relay: Relay; published: string[] } {
  const published: string[] = [];
  const publisher = {
    reconnectedAt: reconnectedSecondsAgo === null ? null : Date.now() - reconnectedSecondsAgo * 1000,
    publishWakeUp: (w: WakeUp) => {
      published.push(...w.ids);
      return Promise.resolve();
    },
  } as unknown as Publisher;
  const relay = createRelay({
    pool: db.pool,
    publisher,
    logger: silentLogger,
    options: aRelayOptions(),
  });
  return { relay, published };
}

/** A `queued` row (its wake-up published long ago) due and last touched the given seconds ago. */
async function queuedRow(dueSecondsAgo: number, updatedSecondsAgo: number): Promise<string> {
  const [id] = await seedMessages(
    db.pool,
    [aNewMessage({ dueAt: new Date(Date.now() - dueSecondsAgo * 1000) })],
    {
      status: 'queued',
      updatedSecondsAgo,
    },
  );
  return id;
}

describe('relay after a broker reconnect', () => {
  it('gives a queued row overdue by more than 15 s, untouched since the reconnect, one new wake-up', async () => {
    const id = await queuedRow(30, 60);
    const { relay, published } = relayAfterReconnect(20);
    expect(await relay.runOnce()).toBe(1);
    expect(published).toEqual([id]);
    // Once per reconnect: the lease touched the row, so the next passes leave it to the normal sweep.
    expect(await relay.runOnce()).toBe(0);
    expect(published).toEqual([id]);
  });

  it('waits 15 s after the reconnect for the due queue to drain first, and stops after 10 minutes', async () => {
    await queuedRow(30, 60);
    for (const secondsAgo of [null, 5, 11 * 60]) {
      const { relay, published } = relayAfterReconnect(secondsAgo);
      expect(await relay.runOnce()).toBe(0);
      expect(published).toEqual([]);
    }
  });

  it('leaves rows overdue by less than 15 s, and rows touched since the reconnect, to the normal sweep', async () => {
    await queuedRow(5, 60);
    await queuedRow(30, 10);
    const { relay, published } = relayAfterReconnect(20);
    expect(await relay.runOnce()).toBe(0);
    expect(published).toEqual([]);
  });
});
