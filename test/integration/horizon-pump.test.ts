import { randomUUID } from 'node:crypto';
import type { Publisher } from '../../src/broker/publisher';
import type { WakeUp } from '../../src/broker/wake-up';
import { withTransaction } from '../../src/db/pool';
import { createHorizonPump } from '../../src/scheduling/horizon-pump';
import { createRelay } from '../../src/scheduling/relay';
import { insertMessages } from '../../src/store/insert-messages';
import { horizonPumpLagSeconds, pumpIntoOutbox } from '../../src/store/horizon-pump';
import { aMessageRequest, aNewMessage, aRelayOptions } from '../helpers/builders';
import { createTestDb, type TestDb } from '../helpers/db';
import { createHarness, waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';
import { newMessageId } from '../../src/store/message-id';

const HOUR = 3_600_000;

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 4 });
});
afterAll(() => db.drop());
afterEach(async () => {
  await db.pool.query('DELETE FROM wake_up_outbox');
  await db.pool.query('DELETE FROM scheduled_messages');
});

/** A publisher with the given horizon that records the ids it confirmed, in order; `ready` while up. */
function aBroker(horizonMs: number | null) {
  const broker = { ready: true, published: [] as string[] };
  const publisher = {
    horizonMs,
    reconnectedAt: null,
    get ready() {
      return broker.ready;
    },
    publishWakeUp: (w: WakeUp) => {
      broker.published.push(...w.ids);
      return Promise.resolve();
    },
  } as unknown as Publisher;
  return { broker, publisher };
}

const aPump = (publisher: Publisher, batchSize = 500) =>
  createHorizonPump({
    pool: db.pool,
    publisher,
    logger: silentLogger,
    options: { intervalMs: 1000, batchSize, partitionMs: 86_400_000 },
  });

const dueIn = (ms: number) => aNewMessage({ dueAt: new Date(Date.now() + ms) });

const awaiting = async (ids: string[]) =>
  (
    await db.pool.query<{ id: string }>(
      'SELECT id FROM scheduled_messages WHERE id = ANY($1) AND awaiting_pump ORDER BY due_at',
      [ids],
    )
  ).rows.map((r) => r.id);

/** The partition a message's row is in. */
const partitionOf = async (id: string) =>
  (
    await db.pool.query<{ p: string }>(
      'SELECT tableoid::regclass::text AS p FROM scheduled_messages WHERE id = $1',
      [id],
    )
  ).rows[0]?.p;
const dayPartition = (at: Date) =>
  `scheduled_messages_${at.toISOString().slice(0, 10).replace(/-/g, '')}t000000`;

const outboxIds = async () =>
  (
    await db.pool.query<{ ids: string[] }>('SELECT message_ids AS ids FROM wake_up_outbox ORDER BY id')
  ).rows.map((r) => r.ids);

describe('the publishing horizon at schedule time', () => {
  it('owes a wake-up (an outbox entry) only to rows due within it; the others await the pump', async () => {
    const [near, far] = [dueIn(10_000), dueIn(2 * HOUR)];
    const inserted = await insertMessages(db.pool, [near, far], HOUR);

    expect(inserted.created.map((m) => m.id)).toEqual([near.id, far.id]);
    expect(inserted.toPublish.map((m) => m.id)).toEqual([near.id]);
    expect(await outboxIds()).toEqual([[near.id]]);
    expect(await awaiting([near.id, far.id])).toEqual([far.id]);
  });

  it('writes no outbox entry when every row is beyond it; a row beyond waits in the later partition, one within in its day', async () => {
    const far = dueIn(30 * 24 * HOUR);
    const beyond = await insertMessages(db.pool, [far], HOUR);
    expect([beyond.toPublish, beyond.outboxId, await outboxIds()]).toEqual([[], null, []]);
    const near = dueIn(10_000);
    await insertMessages(db.pool, [near], HOUR);

    expect(await partitionOf(far.id)).toBe('scheduled_messages_later');
    expect(await partitionOf(near.id)).toBe(dayPartition(near.dueAt));
  });
});

describe('the horizon pump', () => {
  it('publishes rows as they come within the horizon, in due order and in batches, each once', async () => {
    const rows = [5, 1, 4, 2, 3].map((h) => dueIn(h * HOUR));
    await insertMessages(db.pool, rows, HOUR / 2);
    const byDue = [...rows].sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime()).map((m) => m.id);

    // A 3.5-hour horizon reaches the first three.
    const { broker, publisher } = aBroker(3.5 * HOUR);
    expect(await aPump(publisher, 2).runOnce()).toBe(3);
    expect(broker.published).toEqual(byDue.slice(0, 3));
    expect(await awaiting(byDue)).toEqual(byDue.slice(3));
    expect(await outboxIds()).toEqual([]);
    // Each moved into its day; the rest wait in the later partition.
    for (const m of rows) {
      const moved = byDue.slice(0, 3).includes(m.id);
      expect(await partitionOf(m.id)).toBe(moved ? dayPartition(m.dueAt) : 'scheduled_messages_later');
    }

    // Again: nothing new within it, nothing published twice.
    expect(await aPump(publisher, 2).runOnce()).toBe(0);
    expect(broker.published).toEqual(byDue.slice(0, 3));
  });

  it('publishes nothing for a row that is no longer queued (sent, cancelled), and moves it into its day all the same', async () => {
    const [sent, cancelled, open] = [dueIn(2 * HOUR), dueIn(2 * HOUR), dueIn(2 * HOUR)];
    await insertMessages(db.pool, [sent, cancelled, open], HOUR);
    await db.pool.query(`UPDATE scheduled_messages SET status = 'sent' WHERE id = $1`, [sent.id]);
    await db.pool.query(`UPDATE scheduled_messages SET status = 'cancelled' WHERE id = $1`, [cancelled.id]);

    const { broker, publisher } = aBroker(3 * HOUR);
    expect(await aPump(publisher).runOnce()).toBe(1);
    expect(broker.published).toEqual([open.id]);
    for (const m of [sent, cancelled, open]) expect(await partitionOf(m.id)).toBe(dayPartition(m.dueAt));
  });

  it('a row it reaches days late (the workers were down) moves into its day, created for it', async () => {
    const threeDaysAgo = new Date(Date.now() - 3 * 24 * HOUR);
    const late = aNewMessage({ id: newMessageId(threeDaysAgo, threeDaysAgo.getTime()), dueAt: threeDaysAgo });
    await insertMessages(db.pool, [{ ...late, dueAt: new Date(Date.now() + 2 * HOUR) }], HOUR);
    await db.pool.query(`UPDATE scheduled_messages SET due_at = $2 WHERE id = $1`, [late.id, threeDaysAgo]);

    const { broker, publisher } = aBroker(HOUR);
    expect(await aPump(publisher).runOnce()).toBe(1);
    expect(broker.published).toEqual([late.id]);
    expect(await partitionOf(late.id)).toBe(dayPartition(threeDaysAgo));
  });

  it('killed between moving a batch and publishing it: the relay publishes that batch, once', async () => {
    const rows = [dueIn(2 * HOUR), dueIn(2 * HOUR + 1000)];
    await insertMessages(db.pool, rows, HOUR);
    // The pump's first half commits; its process dies before the publishes.
    const moved = await pumpIntoOutbox(db.pool, 3 * HOUR, 86_400_000, 500);
    expect(moved?.rows.map((r) => r.id).sort()).toEqual(rows.map((m) => m.id).sort());

    const { broker, publisher } = aBroker(3 * HOUR);
    expect(await aPump(publisher).runOnce()).toBe(0);
    const relay = createRelay({
      pool: db.pool,
      publisher,
      logger: silentLogger,
      options: aRelayOptions({ pendingAfterMs: 0 }),
    });
    expect(await relay.runOnce()).toBe(2);
    expect(broker.published.sort()).toEqual(rows.map((m) => m.id).sort());
    expect(await outboxIds()).toEqual([]);
    expect(await aPump(publisher).runOnce()).toBe(0);
  });

  it('runs in one process at a time: while another holds its lock, a pump does nothing', async () => {
    const row = dueIn(2 * HOUR);
    await insertMessages(db.pool, [row], HOUR);
    const { broker, publisher } = aBroker(3 * HOUR);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const other = withTransaction(db.pool, async (tx) => {
      await tx.query(
        `SELECT pg_advisory_xact_lock(hashtext('wechat-drip-horizon-pump:' || current_schema()))`,
      );
      holding();
      await released;
    });
    await held;
    expect(await pumpIntoOutbox(db.pool, 3 * HOUR, 86_400_000, 500)).toBeNull();
    expect(await aPump(publisher).runOnce()).toBe(0);
    release();
    await other;
    expect(await aPump(publisher).runOnce()).toBe(1);
    expect(broker.published).toEqual([row.id]);
  });

  it('waits while the broker is unreachable, leaving the rows in Postgres rather than the outbox', async () => {
    const row = dueIn(2 * HOUR);
    await insertMessages(db.pool, [row], HOUR);
    const { broker, publisher } = aBroker(3 * HOUR);
    broker.ready = false;
    expect(await aPump(publisher).runOnce()).toBe(0);
    expect([await awaiting([row.id]), await outboxIds()]).toEqual([[row.id], []]);
  });

  it('reports its lag: how far the earliest row still awaiting it is inside the horizon', async () => {
    await insertMessages(db.pool, [dueIn(2 * HOUR)], HOUR);
    expect(await horizonPumpLagSeconds(db.pool, HOUR)).toBe(0);
    // With a 3-hour horizon the row should have been published an hour ago.
    const lag = await horizonPumpLagSeconds(db.pool, 3 * HOUR);
    expect(lag).toBeGreaterThan(3590);
    expect(lag).toBeLessThan(3610);
    await aPump(aBroker(3 * HOUR).publisher).runOnce();
    expect(await horizonPumpLagSeconds(db.pool, 3 * HOUR)).toBe(0);
  });
});

describe('a service with a short publishing horizon', () => {
  it('pumps HORIZON_PUMP_BATCH_SIZE rows per batch: five messages due together get three wake-ups', async () => {
    const h = await createHarness({
      PUBLISH_HORIZON: '2s',
      RELAY_INTERVAL_MS: '200',
      HORIZON_PUMP_BATCH_SIZE: '2',
    });
    try {
      const service = await h.start();
      const sendAt = new Date(Date.now() + 4000).toISOString();
      const lines = Array.from({ length: 5 }, () =>
        JSON.stringify(aMessageRequest({ sendAt, openid: `batch-${randomUUID()}` })),
      );
      const res = await h.api(service, '/v1/messages/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: lines.join('\n'),
      });
      expect(res.status).toBe(200);
      const pumped = async () =>
        (await service.metrics.published.get()).values
          .filter((v) => v.labels.reason === 'pump')
          .reduce((n, v) => n + v.value, 0);
      expect(await waitFor(() => h.simulator.messages().length === 5, 20_000)).toBe(true);
      // Rows due together share a wake-up within a batch, never across: 2 + 2 + 1.
      expect(await pumped()).toBe(3);
    } finally {
      await h.close();
    }
  }, 40_000);

  it('sends a message scheduled beyond it on time, its wake-up published by the pump', async () => {
    const h = await createHarness({ PUBLISH_HORIZON: '2s', RELAY_INTERVAL_MS: '200' });
    try {
      const service = await h.start();
      const sendAt = new Date(Date.now() + 5000);
      const res = await h.api(service, '/v1/messages', {
        method: 'POST',
        body: JSON.stringify(
          aMessageRequest({ sendAt: sendAt.toISOString(), openid: `far-${randomUUID()}` }),
        ),
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const row = await h.db.pool.query<{ awaiting_pump: boolean }>(
        'SELECT awaiting_pump FROM scheduled_messages WHERE id = $1',
        [id],
      );
      expect(row.rows[0].awaiting_pump).toBe(true);

      const read = () =>
        h.db.pool
          .query<{ status: string; sent_at: Date; awaiting_pump: boolean }>(
            'SELECT status, sent_at, awaiting_pump FROM scheduled_messages WHERE id = $1',
            [id],
          )
          .then((r) => r.rows[0]);
      expect(await waitFor(async () => (await read()).status === 'sent', 20_000)).toBe(true);
      const sent = await read();
      expect(sent).toMatchObject({ status: 'sent', awaiting_pump: false });
      expect(sent.sent_at.getTime()).toBeGreaterThanOrEqual(sendAt.getTime() - 50);
      expect(h.simulator.messages()).toHaveLength(1);
    } finally {
      await h.close();
    }
  }, 40_000);
});
