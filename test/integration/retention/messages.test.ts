import type { PoolClient } from '../../../src/db/pool';
import { insertMessages } from '../../../src/store/insert-messages';
import { tryRetentionLock, releaseRetentionLock } from '../../../src/store/retention-lock';
import { newMessageId } from '../../../src/store/message-id';
import { ensureMessagePartitions, slotsAhead } from '../../../src/store/message-partitions';
import { aNewMessage } from '../../helpers/builders';
import { createTestDb, TEST_HORIZON_MS, type TestDb } from '../../helpers/db';
import { waitFor } from '../../helpers/harness';
import { aPruner, attemptRows, countRows, messageRows } from './rows';

/**
 * The retention pruner against Postgres: messages with their attempts a partition at a time (a past day
 * whose messages all finished longer ago than the age), processed pushes in batches, one process at a
 * time, never an open row.
 */
let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 6 });
});
beforeEach(() =>
  db.pool.query(
    'TRUNCATE scheduled_messages, delivery_attempts, webhook_pushes, cancellations, message_idempotency_keys',
  ),
);
afterAll(() => db.drop());

const DAY_MS = 86_400_000;
const FINAL = ['sent', 'skipped', 'cancelled', 'failed', 'unknown'];

/** The day partitions of scheduled_messages, by their first slot's date. */
const days = async () =>
  (
    await db.pool.query<{ day: string }>(
      `SELECT to_char(from_slot AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM message_partitions() ORDER BY 1`,
    )
  ).rows.map((r) => r.day);
/** Whether a table of that name is in the test's schema (attached or not). */
const exists = async (table: string) =>
  (await db.pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table])).rows[0].t !==
  null;
const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const partitionOf = (n: number) => `scheduled_messages_${dayAgo(n).replace(/-/g, '')}t000000`;

describe('the retention pruner, on messages', () => {
  it('drops a past day whose messages all finished longer ago than the age, with its attempts; keeps a day with an open or a recent one, and today', async () => {
    const old: string[] = [];
    for (const status of FINAL) old.push(...(await messageRows(db.pool, 100, status, '5 days')));
    await attemptRows(db.pool, old);
    const withOpen = await messageRows(db.pool, 3, 'sent', '4 days');
    const [sending] = await messageRows(db.pool, 1, 'sending', '4 days');
    const [queued] = await messageRows(db.pool, 1, 'queued', '3 days');
    const recent = await messageRows(db.pool, 2, 'sent', '2 days', { finishedAgo: '10 minutes' });
    const today = await messageRows(db.pool, 5, 'sent', '1 minute', { finishedAgo: '0 seconds' });
    await attemptRows(db.pool, [...withOpen, ...today]);
    const { pruner, pruned, metrics } = aPruner(db.pool, { finishedAfterMs: 3_600_000 });

    expect(await pruner.runOnce()).toMatchObject({
      messages: 500,
      attempts: 500,
      pushes: 0,
      ledger: 0,
    });

    expect(await days()).not.toContain(dayAgo(5));
    expect(await days()).toEqual(expect.arrayContaining([dayAgo(4), dayAgo(3), dayAgo(2), dayAgo(0)]));
    const left = await db.pool.query<{ id: string }>('SELECT id FROM scheduled_messages ORDER BY id');
    expect(left.rows.map((r) => r.id)).toEqual([...withOpen, sending, queued, ...recent, ...today].sort());
    expect(await countRows(db.pool, 'delivery_attempts')).toBe(withOpen.length + today.length);
    expect(await pruned('scheduled_messages')).toBe(500);
    expect(await pruned('delivery_attempts')).toBe(500);
    // The legacy partition was empty and past (a new database has no rows from before partitioning): it
    // went too. Yesterday's, empty, stays: the partition keeper keeps one day back, and would create it
    // again at its next pass.
    expect((await metrics.retentionPartitionsDropped.get()).values[0].value).toBe(2);
    expect(await days()).toContain(dayAgo(1));
    expect(
      await ensureMessagePartitions(db.pool, slotsAhead(Date.now(), TEST_HORIZON_MS, DAY_MS), DAY_MS),
    ).toBe(0);
    expect(await exists('scheduled_messages_legacy')).toBe(false);
    // Nothing of the detached tables is left behind.
    expect(await exists(partitionOf(5))).toBe(false);
    expect(await exists(partitionOf(5).replace('scheduled_messages', 'delivery_attempts'))).toBe(false);
    expect(await pruner.runOnce()).toEqual({ partitions: 0, messages: 0, attempts: 0, pushes: 0, ledger: 0 });

    // Once the last open message of a day is done and the age has passed, the day goes.
    await db.pool.query(
      `UPDATE scheduled_messages SET status = 'sent', updated_at = now() - interval '2 hours'
                         WHERE id = ANY($1)`,
      [[sending, queued]],
    );
    await db.pool.query(
      `UPDATE scheduled_messages SET updated_at = now() - interval '2 hours' WHERE id = ANY($1)`,
      [recent],
    );
    expect(await pruner.runOnce()).toMatchObject({ partitions: 3, messages: 7, attempts: 3 });
    expect(await days()).not.toEqual(expect.arrayContaining([dayAgo(4)]));
    expect(await countRows(db.pool, 'scheduled_messages')).toBe(today.length);
  });

  it('frees the idempotency keys of the messages it drops, and only theirs', async () => {
    await messageRows(db.pool, 3, 'sent', '5 days', { idempotencyKeys: true });
    const [kept] = await messageRows(db.pool, 1, 'queued', '4 days', { idempotencyKeys: true });
    expect(await countRows(db.pool, 'message_idempotency_keys')).toBe(4);
    const { pruner } = aPruner(db.pool);
    expect(await pruner.runOnce()).toMatchObject({ messages: 3 });
    const keys = await db.pool.query<{ message_id: string }>(
      'SELECT message_id FROM message_idempotency_keys',
    );
    expect(keys.rows.map((r) => r.message_id)).toEqual([kept]);
  });

  it('keeps a day while a message whose id names it still awaits the horizon pump (it will move there)', async () => {
    await messageRows(db.pool, 2, 'sent', '5 days');
    // Scheduled for that day beyond the horizon, and the pump has not reached it: it is in the later partition.
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000);
    const late = aNewMessage({ id: newMessageId(fiveDaysAgo, fiveDaysAgo.getTime()), dueAt: new Date() });
    await insertMessages(db.pool, [{ ...late, dueAt: new Date(Date.now() + 7 * 86_400_000) }], 3_600_000);
    const { pruner } = aPruner(db.pool);
    expect(await pruner.runOnce()).toMatchObject({ messages: 0 });
    expect(await days()).toContain(dayAgo(5));
    await db.pool.query(`DELETE FROM scheduled_messages WHERE id = $1`, [late.id]);
    expect(await pruner.runOnce()).toMatchObject({ messages: 2 });
  });

  it('a run cut short between detaching and dropping: the next run attaches the day again, and drops it or keeps it as it finds it', async () => {
    await messageRows(db.pool, 4, 'sent', '6 days');
    const [open] = await messageRows(db.pool, 1, 'queued', '5 days');
    for (const n of [6, 5]) {
      for (const t of ['scheduled_messages', 'delivery_attempts']) {
        await db.pool.query(`ALTER TABLE ${t} DETACH PARTITION ${t}_${dayAgo(n).replace(/-/g, '')}t000000`);
      }
    }
    expect(await days()).not.toEqual(expect.arrayContaining([dayAgo(6)]));
    const { pruner } = aPruner(db.pool);
    expect(await pruner.runOnce()).toMatchObject({ messages: 4 });
    expect(await days()).toContain(dayAgo(5));
    expect((await db.pool.query('SELECT id FROM scheduled_messages WHERE id = $1', [open])).rowCount).toBe(1);
  });

  it('a pruner killed in the middle of DETACH … CONCURRENTLY: the next run finalizes the detach and drops the day', async () => {
    await messageRows(db.pool, 4, 'sent', '6 days');
    const day = partitionOf(6);
    // A transaction that started before keeps the detach waiting in its second step…
    const reader = await db.pool.connect();
    const detacher = await db.pool.connect();
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await reader.query('SELECT count(*) FROM scheduled_messages');
      const pid = (await detacher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const detaching = detacher
        .query(`ALTER TABLE scheduled_messages DETACH PARTITION ${day} CONCURRENTLY`)
        .catch(() => undefined);
      const pending = async () =>
        (
          await db.pool.query(
            `SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhdetachpending`,
            [day],
          )
        ).rowCount === 1;
      expect(await waitFor(pending, 10_000)).toBe(true);
      // …and the process running it dies there.
      detacher.on('error', () => undefined);
      await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await detaching;
      await reader.query('COMMIT');
      expect(await pending()).toBe(true);
    } finally {
      reader.release();
      detacher.release(true);
    }
    const { pruner } = aPruner(db.pool);
    expect(await pruner.runOnce()).toMatchObject({ messages: 4 });
    expect(await exists(day)).toBe(false);
  });

  it('deletes processed pushes older than the age, never an unprocessed one, nor one its dedupe key still guards', async () => {
    await db.pool.query(
      `INSERT INTO webhook_pushes (app_id, dedupe_key, msg_type, received_at, processed_at)
       SELECT 'wx-retention', k, 'event', now() - a::interval, CASE WHEN p THEN now() - a::interval END
       FROM (VALUES ('old', '2 hours', true), ('old-2', '3 hours', true), ('unprocessed', '2 hours', false),
                    ('young', '10 minutes', true)) v(k, a, p)`,
    );
    const guarded = aPruner(db.pool, { finishedAfterMs: 1000, pushesKeepAtLeastMs: 4 * 3_600_000 });
    expect(await guarded.pruner.runOnce()).toMatchObject({ pushes: 0 });

    const { pruner, pruned } = aPruner(db.pool);
    expect(await pruner.runOnce()).toMatchObject({ pushes: 2 });
    const left = await db.pool.query<{ dedupe_key: string }>(
      'SELECT dedupe_key FROM webhook_pushes ORDER BY 1',
    );
    expect(left.rows.map((r) => r.dedupe_key)).toEqual(['unprocessed', 'young']);
    expect(await pruned('webhook_pushes')).toBe(2);
  });
});

describe('one pruner at a time', () => {
  it('two pruners started together: one prunes everything, the other steps aside', async () => {
    await messageRows(db.pool, 3000, 'sent', '2 days');
    const [a, b] = [aPruner(db.pool, { batchSize: 100 }), aPruner(db.pool, { batchSize: 100 })];

    const runs = await Promise.all([a.pruner.runOnce(), b.pruner.runOnce()]);

    expect(runs.filter((r) => r === null)).toHaveLength(1);
    expect(runs.find((r) => r !== null)).toMatchObject({ messages: 3000 });
    expect(await countRows(db.pool, 'scheduled_messages')).toBe(0);
  });

  it('while another process holds the lock, a pruner deletes nothing; once it is released, it prunes', async () => {
    await messageRows(db.pool, 10, 'sent', '2 days');
    const other: PoolClient = await db.pool.connect();
    const { pruner } = aPruner(db.pool);
    try {
      expect(await tryRetentionLock(other)).toBe(true);
      expect(await pruner.runOnce()).toBeNull();
      expect(await countRows(db.pool, 'scheduled_messages')).toBe(10);
      await releaseRetentionLock(other);
    } finally {
      other.release();
    }
    expect(await pruner.runOnce()).toMatchObject({ messages: 10 });
  });
});

describe('stopping', () => {
  it('a pruner stopped mid-run stops after the batch in hand, with every deletion counted', async () => {
    await db.pool.query(
      `INSERT INTO webhook_pushes (app_id, dedupe_key, msg_type, received_at, processed_at)
       SELECT 'wx-retention', 'k-' || i, 'event', now() - interval '2 hours', now() - interval '2 hours'
       FROM generate_series(1, 5000) i`,
    );
    const { pruner, pruned } = aPruner(db.pool, { batchSize: 100, intervalMs: 10 });
    pruner.start();
    await waitFor(async () => (await pruned('webhook_pushes')) >= 200, 10_000);

    const stopping = Date.now();
    await pruner.stop();

    expect(Date.now() - stopping).toBeLessThan(1000);
    const left = await countRows(db.pool, 'webhook_pushes');
    expect(left).toBeGreaterThan(0);
    expect(await pruned('webhook_pushes')).toBe(5000 - left);
  });
});
