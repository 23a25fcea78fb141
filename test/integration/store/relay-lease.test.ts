import { leaseForRelay, RELAY_LEASE_SQL } from '../../../src/store/relay-lease';
import { createTestDb, type TestDb } from '../../helpers/db';
import { messageIdSql } from '../../helpers/message-rows';

/**
 * What the relay leases, read directly against Postgres: `queued` rows whose wake-up is overdue, and after a broker restart the overdue ones nobody touched since — and, with a backlog of
 * 20,000 messages queued for tomorrow, without reading any of those.
 */
let db: TestDb;
const ids: Record<string, string[]> = {};
const OVERDUE_AFTER_MS = 60_000;
const BACKLOG = 20_000;
/** When "the broker came back": after the rows were made, before the tests lease any. */
let restartedAt: Date;

async function rows(name: string, count: number, status: string, dueAt: string, updatedAt: string) {
  const { rows: made } = await db.pool.query<{ id: string }>(
    `INSERT INTO scheduled_messages (id, due_slot, app_id, openid, channel, payload, due_at, status, updated_at)
     SELECT id, message_slot(id), 'wx-relay', 'o-' || i, 'custom', '{"msgtype":"text","text":{"content":"x"}}',
            now() + $3::interval, $2, now() + $4::interval
     FROM (SELECT i, ${messageIdSql(`now() + $3::interval`)} AS id FROM generate_series(1, $1::int) i) r
     RETURNING id`,
    [count, status, dueAt, updatedAt],
  );
  ids[name] = made.map((r) => r.id);
}

beforeAll(async () => {
  db = await createTestDb();
  await rows('backlog', BACKLOG, 'queued', '1 day', '-10 minutes');
  await rows('dueLater', 2, 'queued', '1 hour', '-10 minutes');
  await rows('lost', 2, 'queued', '-10 minutes', '-10 minutes');
  await rows('republished', 1, 'queued', '-10 minutes', '-10 seconds');
  await rows('sending', 1, 'sending', '-10 minutes', '-10 minutes');
  await db.pool.query('ANALYZE scheduled_messages');
  restartedAt = new Date();
});
afterAll(async () => db.drop());

const lease = (recovery?: { since: Date; graceMs: number }) =>
  leaseForRelay(db.pool, {
    overdueAfterMs: OVERDUE_AFTER_MS,
    limit: 500,
    recovery,
  }).then((leased) => leased.map((r) => r.id).sort());

describe('the relay lease', () => {
  it('reads only the rows it is after, not the backlog queued for later', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows: plan } = await client.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${RELAY_LEASE_SQL}`,
        [OVERDUE_AFTER_MS, 500, new Date().toISOString(), 15_000],
      );
      let read = 0;
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'scheduled_messages') {
          read += Number(node['Actual Rows']) * Number(node['Actual Loops']);
          read += Number(node['Rows Removed by Filter'] ?? 0);
        }
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk(plan[0]['QUERY PLAN'][0].Plan);
      // The rows it leases (3), looked up again by the UPDATE, and the few it passes over: far from 20,000.
      expect(read).toBeLessThan(50);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('leases lost queued rows once, and nothing else', async () => {
    expect(await lease()).toEqual([...ids.lost].sort());
    expect(await lease()).toEqual([]);
  });

  it('after a broker restart, also leases the overdue rows nobody touched since', async () => {
    const leased = await lease({ since: restartedAt, graceMs: 15_000 });
    // The rows leased by the test above were touched since; the one republished 10 s before was not.
    expect(leased).toEqual([...ids.republished].sort());
  });
});
