import { createReceivedCounter, scheduleTagged } from '../helpers/chaos';
import { createHarness, type Harness, waitFor } from '../helpers/harness';

let h: Harness;
afterEach(() => h?.close());

describe('the worker claims no more rows than it has send slots', () => {
  it('with a slow WeChat, the rows in `sending` never exceed WORKER_SEND_CONCURRENCY while a burst drains', async () => {
    const CONCURRENCY = 5;
    const N = 300;
    // Batches far larger than the slots: before send slots, each batch claimed all its rows at once.
    h = await createHarness({
      WORKER_SEND_CONCURRENCY: String(CONCURRENCY),
      WORKER_BATCH_SIZE: '100',
      WORKER_CONCURRENT_BATCHES: '4',
    });
    const service = await h.start();
    h.simulator.setFaults({ latencyMs: 40 });
    const counter = createReceivedCounter(h);
    const tags = await scheduleTagged(h, service, N, { fromMs: 500, toMs: 600 });

    let most = 0;
    const drained = await waitFor(
      async () => {
        const { rows } = await h.db.pool.query<{ sending: number; open: number }>(
          `SELECT count(*) FILTER (WHERE status = 'sending')::int AS sending,
                  count(*) FILTER (WHERE status IN ('queued', 'sending'))::int AS open
           FROM scheduled_messages`,
        );
        most = Math.max(most, rows[0].sending);
        return rows[0].open === 0;
      },
      30_000,
      5,
    );

    expect(drained).toBe(true);
    expect(most).toBeLessThanOrEqual(CONCURRENCY);
    // The poll did see sends in flight, several at once: the bound was measured, not missed.
    expect(most).toBeGreaterThan(1);
    const counts = counter.counts();
    expect(tags.filter((t) => counts.get(t) !== 1)).toEqual([]);
  });
});
