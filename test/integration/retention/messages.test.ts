import type { PoolClient } from '../../../src/db/pool';
import { PRUNE_MESSAGES_SQL, pruneFinishedMessages } from '../../../src/store/prune-finished';
import { tryRetentionLock, releaseRetentionLock } from '../../../src/store/retention-lock';
import { createTestDb, type TestDb } from '../../helpers/db';
import { waitFor } from '../../helpers/harness';
import { aPruner, attemptRows, countRows, messageRows } from './rows';

/**
 * The retention pruner against Postgres: finished messages with their attempts, processed pushes, in
 * batches, one process at a time, never an open row.
 */
let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 6 });
});
beforeEach(() =>
  db.pool.query('TRUNCATE scheduled_messages, delivery_attempts, webhook_pushes, cancellations'),
);
afterAll(() => db.drop());

const FINAL = ['sent', 'skipped', 'cancelled', 'failed', 'unknown'];
const OPEN = ['queued', 'sending'];

describe('the retention pruner, on messages', () => {
  it('deletes finished messages older than the age with their attempts, a batch at a time, and keeps every open one however old', async () => {
    const old: string[] = [];
    for (const status of FINAL) old.push(...(await messageRows(db.pool, 500, status, '2 hours')));
    const open: string[] = [];
    for (const status of OPEN) open.push(...(await messageRows(db.pool, 3, status, '2 hours')));
    const young = await messageRows(db.pool, 5, 'sent', '10 minutes');
    await attemptRows(db.pool, [...old, ...open, ...young]);
    const { pruner, pruned } = aPruner(db.pool);

    // One batch is one statement of at most RETENTION_BATCH rows.
    expect(await pruneFinishedMessages(db.pool, 3_600_000, 1000)).toEqual({ messages: 1000, attempts: 1000 });
    expect(await pruner.runOnce()).toEqual({ messages: 1500, attempts: 1500, pushes: 0, ledger: 0 });

    const left = await db.pool.query<{ id: string }>('SELECT id FROM scheduled_messages ORDER BY id');
    expect(left.rows.map((r) => r.id)).toEqual([...open, ...young].sort());
    expect(await countRows(db.pool, 'delivery_attempts')).toBe(open.length + young.length);
    expect(await pruned('scheduled_messages')).toBe(1500);
    expect(await pruned('delivery_attempts')).toBe(1500);
    expect(await pruner.runOnce()).toEqual({ messages: 0, attempts: 0, pushes: 0, ledger: 0 });
  });

  it('reads through its indexes only the rows it deletes and their attempts, not the open backlog nor the younger finished rows', async () => {
    await messageRows(db.pool, 10_000, 'queued', '3 hours');
    await attemptRows(db.pool, await messageRows(db.pool, 10_000, 'sent', '10 minutes'));
    await attemptRows(db.pool, await messageRows(db.pool, 5, 'sent', '2 hours'));
    await db.pool.query('ANALYZE scheduled_messages, delivery_attempts');
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows: plan } = await client.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${PRUNE_MESSAGES_SQL}`,
        [3_600_000, 1000],
      );
      expect(rowsRead(plan[0]['QUERY PLAN'][0].Plan)).toBeLessThan(50);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('leaves a failed message alone once a dead-letter replay has put it back in the queue', async () => {
    const [replayed] = await messageRows(db.pool, 1, 'failed', '2 hours');
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`UPDATE scheduled_messages SET status = 'queued', due_at = now() WHERE id = $1`, [
        replayed,
      ]);
      // The batch skips the row the replay holds; once the replay commits, the row is open.
      expect(await pruneFinishedMessages(db.pool, 3_600_000, 1000)).toEqual({ messages: 0, attempts: 0 });
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect(await pruneFinishedMessages(db.pool, 3_600_000, 1000)).toEqual({ messages: 0, attempts: 0 });
    expect(await countRows(db.pool, 'scheduled_messages', `status = 'queued'`)).toBe(1);
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
    await messageRows(db.pool, 3000, 'sent', '2 hours');
    const [a, b] = [aPruner(db.pool, { batchSize: 100 }), aPruner(db.pool, { batchSize: 100 })];

    const runs = await Promise.all([a.pruner.runOnce(), b.pruner.runOnce()]);

    expect(runs.filter((r) => r === null)).toHaveLength(1);
    expect(runs.find((r) => r !== null)).toMatchObject({ messages: 3000 });
    expect(await countRows(db.pool, 'scheduled_messages')).toBe(0);
  });

  it('while another process holds the lock, a pruner deletes nothing; once it is released, it prunes', async () => {
    await messageRows(db.pool, 10, 'sent', '2 hours');
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
    await messageRows(db.pool, 5000, 'sent', '2 hours');
    const { pruner, pruned } = aPruner(db.pool, { batchSize: 100, intervalMs: 10 });
    pruner.start();
    await waitFor(async () => (await pruned('scheduled_messages')) >= 200, 10_000);

    const stopping = Date.now();
    await pruner.stop();

    expect(Date.now() - stopping).toBeLessThan(1000);
    const left = await countRows(db.pool, 'scheduled_messages');
    expect(left).toBeGreaterThan(0);
    expect(await pruned('scheduled_messages')).toBe(5000 - left);
  });
});

/** Rows of messages and attempts an EXPLAIN ANALYZE plan read (returned, and removed by a filter). */
function rowsRead(node: Record<string, unknown>): number {
  let read = 0;
  if (['scheduled_messages', 'delivery_attempts'].includes(String(node['Relation Name']))) {
    read += Number(node['Actual Rows']) * Number(node['Actual Loops']);
    read += Number(node['Rows Removed by Filter'] ?? 0);
  }
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) read += rowsRead(child);
  return read;
}
