import { randomBytes } from 'node:crypto';
import { CLAIM_SNAPSHOT_SQL } from '../../src/store/claim-snapshot';
import { CLAIM_WRITE_SQL } from '../../src/store/claim-write';
import { claimDue } from '../../src/store/claim-due';
import { insertMessages } from '../../src/store/insert-messages';
import { appendCancellation } from '../../src/store/ledger';
import { recordOutcomes } from '../../src/store/record-outcomes';
import { aNewMessage, APP_ID, aSentOutcome } from '../helpers/builders';
import { createTestDb, type TestDb } from '../helpers/db';

/**
 * docs/scaling.md's next step for Postgres, tried on a partitioned copy of `scheduled_messages` in a
 * scratch schema (the live table is not migrated): partitions by range of the message id, the id being
 * UUIDv7-shaped with the message's due time in its timestamp field, so that everything that names a
 * message by id — the worker's claim, the outcome, `GET`/`DELETE /v1/messages/:id`, the attempts' foreign
 * key — reads one day's partition, and retention becomes DETACH + DROP of a finished day.
 */
const DAY_MS = 86_400_000;
const hex48 = (ms: number) => ms.toString(16).padStart(12, '0');
/** The smallest id of the millisecond `ms`: a partition bound. */
const boundAt = (ms: number) => `${hex48(ms).slice(0, 8)}-${hex48(ms).slice(8)}-0000-0000-000000000000`;
/** A UUIDv7-shaped id whose timestamp is the message's due time, the rest random. */
function idDueAt(ms: number): string {
  const r = randomBytes(9).toString('hex');
  const variant = (8 | (parseInt(r[3], 16) & 3)).toString(16);
  return `${hex48(ms).slice(0, 8)}-${hex48(ms).slice(8)}-7${r.slice(0, 3)}-${variant}${r.slice(4, 7)}-${r.slice(6, 18)}`;
}
const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const partitionOf = (dayMs: number) =>
  `scheduled_messages_${new Date(dayMs).toISOString().slice(0, 10).replace(/-/g, '')}`;

/**
 * The partitioned copy: the live table's columns, defaults, checks, indexes and trigger, partitioned by id.
 * The unique (app_id, idempotency_key) index cannot be declared on it (a unique index of a partitioned
 * table must include the partition key): the keys move to a table of their own.
 */
function partitionedCopySql(days: readonly number[]): string {
  return `
ALTER TABLE scheduled_messages RENAME TO scheduled_messages_live;
ALTER TABLE delivery_attempts DROP CONSTRAINT delivery_attempts_message_id_fkey;
CREATE TABLE scheduled_messages (LIKE scheduled_messages_live INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (id);
ALTER TABLE scheduled_messages ADD PRIMARY KEY (id);
CREATE INDEX ON scheduled_messages (app_id, cancel_key) WHERE cancel_key IS NOT NULL;
CREATE INDEX ON scheduled_messages (app_id, openid);
CREATE INDEX ON scheduled_messages (status, updated_at) WHERE status IN ('pending', 'sending');
CREATE INDEX ON scheduled_messages (due_at) WHERE status = 'queued';
CREATE INDEX ON scheduled_messages (sequence_id, step_index) WHERE sequence_id IS NOT NULL;
CREATE TRIGGER scheduled_messages_intended_at BEFORE INSERT ON scheduled_messages
  FOR EACH ROW EXECUTE FUNCTION scheduled_messages_intended_at();
CREATE TABLE message_idempotency_keys (
  app_id text NOT NULL, idempotency_key text NOT NULL, message_id uuid NOT NULL,
  PRIMARY KEY (app_id, idempotency_key));
ALTER TABLE delivery_attempts ADD FOREIGN KEY (message_id) REFERENCES scheduled_messages (id) ON DELETE CASCADE;
${days.map((d) => `CREATE TABLE ${partitionOf(d)} PARTITION OF scheduled_messages FOR VALUES FROM ('${boundAt(d)}') TO ('${boundAt(d + DAY_MS)}');`).join('\n')}
CREATE TABLE scheduled_messages_default PARTITION OF scheduled_messages DEFAULT;`;
}

/**
 * The idempotent insert on the partitioned table: the keys first (a repeated key inserts nothing, a
 * concurrent one waits on the key's index as it waits on the live table's unique index), then the rows
 * without a key or whose key was new.
 */
const INSERT_KEYED_SQL = `
WITH k AS (
  INSERT INTO message_idempotency_keys (app_id, idempotency_key, message_id)
  SELECT app_id, key, id FROM unnest($1::uuid[], $2::text[], $3::text[]) AS i(id, app_id, key) WHERE key IS NOT NULL
  ON CONFLICT DO NOTHING RETURNING message_id
)
INSERT INTO scheduled_messages (id, app_id, openid, channel, payload, due_at, idempotency_key, status)
SELECT i.id, i.app_id, 'o-partitioned', 'custom', '{"msgtype":"text","text":{"content":"hi"}}', i.due_at, i.key, 'queued'
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) AS i(id, app_id, key, due_at)
 WHERE i.key IS NULL OR i.id IN (SELECT message_id FROM k)
RETURNING id`;

/** Retention's check before it drops a day: the messages of the partition that are not finished. */
const OPEN_IN_PARTITION = (table: string) =>
  `SELECT count(*)::int AS open FROM ${table} WHERE status IN ('queued', 'sending')`;

let db: TestDb;
const now = Date.now();
const today = dayOf(now);
const days = [today - 3 * DAY_MS, today - DAY_MS, today, today + DAY_MS];

async function insertDueAt(
  times: readonly number[],
  keys: readonly (string | null)[] = [],
): Promise<string[]> {
  const ids = times.map(idDueAt);
  const { rows } = await db.pool.query<{ id: string }>(INSERT_KEYED_SQL, [
    ids,
    ids.map(() => APP_ID),
    ids.map((_, i) => keys[i] ?? null),
    times.map((t) => new Date(t).toISOString()),
  ]);
  return rows.map((r) => r.id);
}

/**
 * The partitions of scheduled_messages a statement read, from EXPLAIN (ANALYZE, FORMAT JSON) run in a
 * transaction that is rolled back: `planned` the plan names, `read` those it executed (pruned at run time
 * are in the plan but never executed).
 */
async function partitionsOf(sql: string, params: unknown[]): Promise<{ planned: string[]; read: string[] }> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      params,
    );
    const planned = new Set<string>();
    const read = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      const name = n['Relation Name'];
      if (typeof name === 'string' && name.startsWith('scheduled_messages_')) {
        planned.add(name);
        if (Number(n['Actual Loops']) > 0) read.add(name);
      }
      Object.values(n).forEach(walk);
    };
    walk(rows[0]['QUERY PLAN']);
    return { planned: [...planned].sort(), read: [...read].sort() };
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

beforeAll(async () => {
  db = await createTestDb();
  await db.pool.query(partitionedCopySql(days));
});
afterAll(async () => db?.drop());

describe('scheduled_messages partitioned by the due day in the id (docs/scaling.md)', () => {
  it('the claim, as the worker sends it, reads only the partition of its batch’s day, and claims there', async () => {
    const dueToday = await insertDueAt(
      Array.from({ length: 20 }, (_, i) => Math.max(today, now - 60_000) + i),
    );
    const dueYesterday = await insertDueAt([today - DAY_MS + 1000, today - DAY_MS + 2000]);
    await insertDueAt([today + DAY_MS + 1000]);
    await appendCancellation(db.pool, {
      appId: APP_ID,
      scope: 'message',
      target: dueToday[0],
      reason: 'test',
      actor: 'test',
    });

    // Its read and its write both name the batch's ids, so both read that day's partition only.
    expect((await partitionsOf(CLAIM_SNAPSHOT_SQL, [dueToday])).read).toEqual([partitionOf(today)]);
    const skipOne = [[dueToday[1]], ['skipped'], ['stale'], [null], [false]];
    const noCounters = [[], [], [], [], [], [], [], [], []];
    const write = await partitionsOf(CLAIM_WRITE_SQL, [...skipOne, ...noCounters]);
    expect(write.read).toEqual([partitionOf(today)]);

    const result = await claimDue(db.pool, [...dueToday, ...dueYesterday], 0, [APP_ID]);
    expect(result.cancelled).toEqual([dueToday[0]]);
    expect(result.claimed.map((m) => m.id).sort()).toEqual([...dueToday.slice(1), ...dueYesterday].sort());
    expect(await claimDue(db.pool, dueToday, 0, [APP_ID])).toMatchObject({ claimed: [], cancelled: [] });
  });

  it('the live insert cannot run (its ON CONFLICT needs the unique index); the key table keeps a repeated key to one row', async () => {
    await expect(
      insertMessages(db.pool, [aNewMessage({ idempotencyKey: 'live-key' })], null),
    ).rejects.toThrow(/no unique or exclusion constraint matching the ON CONFLICT/);
    const at = now + 3_600_000;
    const first = await insertDueAt([at, at], ['k-1', 'k-1']);
    const again = await insertDueAt([at], ['k-1']);

    expect(first).toHaveLength(1);
    expect(again).toEqual([]);
    const { rows } = await db.pool.query(
      `SELECT m.id FROM scheduled_messages m JOIN message_idempotency_keys k ON k.message_id = m.id
        WHERE k.app_id = $1 AND k.idempotency_key = 'k-1'`,
      [APP_ID],
    );
    expect(rows.map((r: { id: string }) => r.id)).toEqual(first);
  });

  it('retention drops a finished day whole (its attempts first), keeps a day with open messages, and the claim goes on', async () => {
    const old = today - 3 * DAY_MS;
    const finished = await insertDueAt([old + 1000, old + 2000]);
    const { claimed } = await claimDue(db.pool, finished, 0, [APP_ID]);
    await recordOutcomes(
      db.pool,
      claimed.map((m) => aSentOutcome(m.id)),
    );
    const later = await insertDueAt([now - 1000]);
    const yesterday = partitionOf(today - DAY_MS);
    await insertDueAt([today - DAY_MS + 5000]); // left queued: yesterday is not finished

    const open = async (t: string) =>
      (await db.pool.query<{ open: number }>(OPEN_IN_PARTITION(t))).rows[0].open;
    expect(await open(partitionOf(old))).toBe(0);
    expect(await open(yesterday)).toBeGreaterThan(0);
    await expect(
      db.pool.query(`ALTER TABLE scheduled_messages DETACH PARTITION ${partitionOf(old)}`),
    ).rejects.toThrow(/foreign key/);
    await db.pool.query(`DELETE FROM delivery_attempts WHERE message_id >= $1 AND message_id < $2`, [
      boundAt(old),
      boundAt(old + DAY_MS),
    ]);
    await db.pool.query(`ALTER TABLE scheduled_messages DETACH PARTITION ${partitionOf(old)}`);
    await db.pool.query(`DROP TABLE ${partitionOf(old)}`);

    const left = await db.pool.query('SELECT count(*)::int AS n FROM scheduled_messages WHERE id = ANY($1)', [
      finished,
    ]);
    expect(left.rows[0].n).toBe(0);
    expect((await claimDue(db.pool, later, 0, [APP_ID])).claimed.map((m) => m.id)).toEqual(later);
  });
});
