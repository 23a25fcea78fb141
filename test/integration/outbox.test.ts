import { randomUUID } from 'node:crypto';
import { newMessageId } from '../../src/store/message-id';
import type { Publisher } from '../../src/broker/publisher';
import type { WakeUp } from '../../src/broker/wake-up';
import { createMetrics } from '../../src/metrics';
import { createRelay } from '../../src/scheduling/relay';
import { withTransaction } from '../../src/db/pool';
import {
  insertScheduled,
  publishScheduled,
  scheduleMessages,
  type ScheduleDeps,
} from '../../src/scheduling/schedule-messages';
import { createScheduleWriter } from '../../src/scheduling/schedule-writer';
import { cancelById } from '../../src/scheduling/cancel';
import { countOwedWakeUps, OWED_ENTRIES_COUNTED, OWED_WAKE_UPS_SQL } from '../../src/store/wake-up-outbox';
import { aNewMessage } from '../helpers/builders';
import { createTestDb, TEST_HORIZON_MS, type TestDb } from '../helpers/db';
import { silentLogger } from '../helpers/logger';

// The outbox after migration 0008: rows are inserted `queued` with one entry naming them, in one statement;
// the entry is deleted once their wake-ups are confirmed, and an entry left behind is the relay's work.

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 6 });
});
afterAll(() => db.drop());
afterEach(async () => {
  await db.pool.query('DELETE FROM wake_up_outbox');
  await db.pool.query('DELETE FROM scheduled_messages');
});

/** A publisher that records the ids it confirmed, or refuses every publish while `down`. */
function aBroker() {
  const broker = { down: false, published: [] as string[], publishes: 0 };
  const publisher = {
    reconnectedAt: null,
    horizonMs: TEST_HORIZON_MS,
    publishWakeUp: (w: WakeUp) => {
      broker.publishes++;
      if (broker.down) return Promise.reject(new Error('RabbitMQ is not connected'));
      broker.published.push(...w.ids);
      return Promise.resolve();
    },
  } as unknown as Publisher;
  return { broker, publisher };
}

function depsWith(publisher: Publisher): ScheduleDeps {
  return {
    pool: db.pool,
    publisher,
    logger: silentLogger,
    metrics: createMetrics({ pool: db.pool, transportMode: 'levels' }),
  };
}

function aRelay(publisher: Publisher, pendingAfterMs: number) {
  return createRelay({
    pool: db.pool,
    publisher,
    logger: silentLogger,
    options: {
      intervalMs: 1000,
      pendingAfterMs,
      overdueAfterMs: 300_000,
      batchSize: 500,
      sendingTimeoutMs: 300_000,
      atLeastOnceAppIds: [],
    },
  });
}

const statuses = async (ids: readonly string[]) =>
  (
    await db.pool.query<{ status: string }>(
      'SELECT status FROM scheduled_messages WHERE id = ANY($1::uuid[]) ORDER BY status',
      [ids],
    )
  ).rows.map((r) => r.status);

describe('the wake-up outbox', () => {
  it('writes each message once, queued: a confirmed schedule leaves no entry and nothing for the relay', async () => {
    const { broker, publisher } = aBroker();
    const messages = [aNewMessage(), aNewMessage()];

    const results = await scheduleMessages(depsWith(publisher), messages);

    expect(results.map((r) => r.ok && r.message.status)).toEqual(['queued', 'queued']);
    expect(broker.published.sort()).toEqual(messages.map((m) => m.id).sort());
    expect(await countOwedWakeUps(db.pool)).toBe(0);
    // Written once: the old protocol's UPDATE to queued, in a later transaction, moved updated_at.
    const { rows } = await db.pool.query<{ once: boolean }>(
      'SELECT updated_at = created_at AS once FROM scheduled_messages WHERE id = ANY($1::uuid[])',
      [messages.map((m) => m.id)],
    );
    expect(rows).toEqual([{ once: true }, { once: true }]);
    expect(await aRelay(publisher, 0).runOnce()).toBe(0);
  });

  it('accepted while RabbitMQ refuses: the entry stays, and the relay publishes it once it is stale, then deletes it', async () => {
    const { broker, publisher } = aBroker();
    broker.down = true;
    const messages = [aNewMessage(), aNewMessage(), aNewMessage()];

    const results = await scheduleMessages(depsWith(publisher), messages);

    expect(results.every((r) => r.ok)).toBe(true);
    expect(await countOwedWakeUps(db.pool)).toBe(3);
    expect(await aRelay(publisher, 0).runOnce()).toBe(0); // still down: the entry stays
    expect(await countOwedWakeUps(db.pool)).toBe(3);
    broker.down = false;
    expect(await aRelay(publisher, 60_000).runOnce()).toBe(0); // not stale yet: left to the api
    expect(await aRelay(publisher, 0).runOnce()).toBe(3);
    expect(broker.published.sort()).toEqual(messages.map((m) => m.id).sort());
    expect(await countOwedWakeUps(db.pool)).toBe(0);
    expect(await aRelay(publisher, 0).runOnce()).toBe(0);
  });

  it('republishes only the messages of an entry that are still open, and deletes an entry with none', async () => {
    const { broker, publisher } = aBroker();
    broker.down = true;
    const [kept, cancelled] = [aNewMessage(), aNewMessage()];
    await scheduleMessages(depsWith(publisher), [kept, cancelled]);
    const [alone] = [aNewMessage()];
    await scheduleMessages(depsWith(publisher), [alone]);
    await cancelById(db.pool, [
      { id: cancelled.id, reason: 'test', actor: 'test' },
      { id: alone.id, reason: 'test', actor: 'test' },
    ]);
    broker.down = false;

    expect(await aRelay(publisher, 0).runOnce()).toBe(1);

    expect(broker.published).toEqual([kept.id]);
    expect(await countOwedWakeUps(db.pool)).toBe(0);
  });
});

describe('the backlog gauges', () => {
  /** One scrape of a registry whose backlog counts entries older than `owedAfterMs`: the two gauges. */
  async function scrape(owedAfterMs: number): Promise<{ messages: number; oldestS: number }> {
    const { registry } = createMetrics({
      pool: db.pool,
      transportMode: 'levels',
      outboxOwedAfterMs: owedAfterMs,
    });
    const text = await registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    return {
      messages: value('wechat_drip_outbox_backlog_messages'),
      oldestS: value('wechat_drip_outbox_oldest_age_seconds'),
    };
  }

  it('count the messages whose wake-up is not confirmed after the grace, and the oldest entry’s age', async () => {
    const { broker, publisher } = aBroker();
    expect(await scrape(0)).toEqual({ messages: 0, oldestS: 0 });
    broker.down = true;
    await scheduleMessages(depsWith(publisher), [aNewMessage(), aNewMessage()]);
    // The first entry written 10 s ago (backdated: a sleep would be stretched by a loaded machine).
    await db.pool.query(`UPDATE wake_up_outbox SET created_at = created_at - interval '10 seconds'`);
    await scheduleMessages(depsWith(publisher), [aNewMessage()]);

    // Every entry; only the first one (older than 5 s); none yet (the schedule path's minute).
    expect((await scrape(0)).messages).toBe(3);
    expect((await scrape(5000)).messages).toBe(2);
    expect((await scrape(60_000)).messages).toBe(0);
    expect((await scrape(60_000)).oldestS).toBeGreaterThanOrEqual(10);

    broker.down = false;
    await aRelay(publisher, 0).runOnce();
    expect(await scrape(0)).toEqual({ messages: 0, oldestS: 0 });
  });

  it('read only the entries they count: 20,000 written this instant cost the count nothing', async () => {
    await db.pool.query(
      `INSERT INTO wake_up_outbox (message_ids) SELECT ARRAY[gen_random_uuid()] FROM generate_series(1, 20000)`,
    );
    await db.pool.query('ANALYZE wake_up_outbox');
    const { rows: plan } = await db.pool.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${OWED_WAKE_UPS_SQL}`,
      [60_000, OWED_ENTRIES_COUNTED],
    );
    let read = 0;
    const walk = (node: Record<string, unknown>) => {
      if (node['Relation Name'] === 'wake_up_outbox')
        read += Number(node['Actual Rows']) + Number(node['Rows Removed by Filter'] ?? 0);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(plan[0]['QUERY PLAN'][0].Plan);
    expect(read).toBe(0);
    expect(await countOwedWakeUps(db.pool, 60_000)).toBe(0);
    expect(await countOwedWakeUps(db.pool)).toBe(20_000);
  });
});

describe('the schedule writer (group commit)', () => {
  it('inserts callers that arrive while its inserts are busy in one statement, with one entry', async () => {
    const { broker, publisher } = aBroker();
    const writer = createScheduleWriter(
      { pool: db.pool, publisher, logger: silentLogger },
      { concurrency: 1, maxRows: 100 },
    );
    const deps = { ...depsWith(publisher), writer };
    broker.down = true; // so that the entries stay, to be counted
    const callers = Array.from({ length: 6 }, () => [aNewMessage()]);

    const results = await Promise.all(callers.map((messages) => scheduleMessages(deps, messages)));

    expect(results.map(([r]) => r.ok && r.message.id)).toEqual(callers.map(([m]) => m.id));
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM wake_up_outbox');
    // The first went alone into the idle writer; the five that came meanwhile shared the next statement.
    expect(rows[0].n).toBe(2);
    expect(await countOwedWakeUps(db.pool)).toBe(6);
  });

  it('when a shared statement fails, inserts each caller alone: only the caller whose row is bad fails', async () => {
    const { publisher } = aBroker();
    const writer = createScheduleWriter(
      { pool: db.pool, publisher, logger: silentLogger },
      { concurrency: 1, maxRows: 100 },
    );
    const deps = { ...depsWith(publisher), writer };
    const first = [aNewMessage()];
    const good = [aNewMessage(), aNewMessage()];
    const bad = [aNewMessage({ maxLatenessMs: -1 })]; // the table's CHECK refuses it

    const [a, b, c] = await Promise.allSettled([
      scheduleMessages(deps, first),
      scheduleMessages(deps, good),
      scheduleMessages(deps, bad),
    ]);

    expect([a.status, b.status, c.status]).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(await statuses([...first, ...good, ...bad].map((m) => m.id))).toEqual([
      'queued',
      'queued',
      'queued',
    ]);
  });

  it('answers a key repeated by two callers of one statement as a repeat, and a changed request as a conflict', async () => {
    const { publisher } = aBroker();
    const writer = createScheduleWriter(
      { pool: db.pool, publisher, logger: silentLogger },
      { concurrency: 1, maxRows: 100 },
    );
    const deps = { ...depsWith(publisher), writer };
    const key = `idem-${randomUUID()}`;
    const original = aNewMessage({ idempotencyKey: key, requestHash: 'h1' });
    const repeat = { ...original, id: newMessageId(new Date()) };
    const changed = { ...original, id: newMessageId(new Date()), requestHash: 'h2' };

    const [, [r1], [r2], [r3]] = await Promise.all(
      [[aNewMessage()], [original], [repeat], [changed]].map((m) => scheduleMessages(deps, m)),
    );

    expect(r1).toMatchObject({ ok: true, created: true, message: { id: original.id } });
    expect(r2).toMatchObject({ ok: true, created: false, message: { id: original.id } });
    expect(r3).toMatchObject({ ok: false, error: { code: 'idempotency_key_reused' } });
  });
});

describe("scheduling in a producer's transaction", () => {
  it('publishes nothing before the commit; after it, publishScheduled publishes and deletes the entry', async () => {
    const { broker, publisher } = aBroker();
    const messages = [aNewMessage(), aNewMessage()];

    const scheduled = await withTransaction(db.pool, (tx) =>
      insertScheduled(depsWith(aBroker().publisher), tx, messages),
    );

    expect(broker.publishes).toBe(0);
    expect(await countOwedWakeUps(db.pool)).toBe(2);
    await publishScheduled(depsWith(publisher), scheduled);
    expect(scheduled.results.map((r) => [r.message.id, r.created])).toEqual(
      messages.map((m) => [m.id, true]),
    );
    expect(broker.published.sort()).toEqual(messages.map((m) => m.id).sort());
    expect(await countOwedWakeUps(db.pool)).toBe(0);
  });

  it('throws a reused idempotency key, which rolls back everything the transaction wrote', async () => {
    const { publisher } = aBroker();
    const original = aNewMessage({ idempotencyKey: `idem-${randomUUID()}`, requestHash: 'h1' });
    await scheduleMessages(depsWith(publisher), [original]);
    const [before, changed] = [
      aNewMessage(),
      { ...original, id: newMessageId(new Date()), requestHash: 'h2' },
    ];

    const written = withTransaction(db.pool, async (tx) => {
      await insertScheduled(depsWith(aBroker().publisher), tx, [before]);
      return insertScheduled(depsWith(aBroker().publisher), tx, [changed]);
    });

    await expect(written).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await statuses([before.id, changed.id])).toEqual([]);
    expect(await countOwedWakeUps(db.pool)).toBe(0);
  });
});
