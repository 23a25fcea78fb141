import { randomUUID } from 'node:crypto';
import { CLAIM_SNAPSHOT_SQL } from '../../../src/store/claim-snapshot';
import { CLAIM_WRITE_SQL } from '../../../src/store/claim-write';
import { insertMessages } from '../../../src/store/insert-messages';
import {
  ensureMessagePartitions,
  inPartitionsOf,
  partitionSlotsOf,
} from '../../../src/store/message-partitions';
import { messageIdTime, newMessageId } from '../../../src/store/message-id';
import { findMessages } from '../../../src/store/message-store';
import { aNewMessage } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';

/**
 * scheduled_messages partitioned by the due time its ids carry (migration 0029): what each statement that
 * names messages by id reads, the idempotency keys across partitions, the partitions the service creates.
 */
let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db?.drop());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const dayPartition = (at: Date) =>
  `scheduled_messages_${at.toISOString().slice(0, 10).replace(/-/g, '')}t000000`;

/**
 * The partitions of scheduled_messages a statement read, from EXPLAIN (ANALYZE, FORMAT JSON) in a
 * transaction rolled back: those in its plan (the rest were pruned when it was planned).
 */
async function partitionsRead(sql: string, params: unknown[]): Promise<string[]> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      params,
    );
    const read = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      const name = n['Relation Name'];
      if (
        typeof name === 'string' &&
        name.startsWith('scheduled_messages_') &&
        Number(n['Actual Loops']) > 0
      ) {
        read.add(name);
      }
      Object.values(n).forEach(walk);
    };
    walk(rows[0]['QUERY PLAN']);
    return [...read].sort();
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe('message ids name their partition', () => {
  it('message_slot(id) in SQL is the time newMessageId put in it; null for a random id', async () => {
    const ids = [new Date(), new Date(Date.now() + 3 * DAY), new Date('2027-02-01T00:00:00.001Z')].map((t) =>
      newMessageId(t),
    );
    const { rows } = await db.pool.query<{ slot: Date | null }>(
      'SELECT message_slot(id) AS slot FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n) ORDER BY n',
      [[...ids, randomUUID()]],
    );
    expect(rows.map((r) => r.slot)).toEqual([...ids.map(messageIdTime), null]);
  });

  it('a row due within the horizon goes to its day, one beyond it to the later partition', async () => {
    const [near, far] = [aNewMessage(), aNewMessage({ dueAt: new Date(Date.now() + 2 * DAY) })];
    await insertMessages(db.pool, [near, far], HOUR);
    const { rows } = await db.pool.query<{ id: string; p: string }>(
      'SELECT id, tableoid::regclass::text AS p FROM scheduled_messages WHERE id = ANY($1)',
      [[near.id, far.id]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.p]))).toEqual({
      [near.id]: dayPartition(near.dueAt),
      [far.id]: 'scheduled_messages_later',
    });
  });
});

describe('statements that name messages by id read only their partitions', () => {
  it('the claim (snapshot and write) reads only the day of its batch, not the other days nor the later one', async () => {
    const batch = [aNewMessage(), aNewMessage()];
    await insertMessages(db.pool, [...batch, aNewMessage({ dueAt: new Date(Date.now() + DAY) })], 4 * DAY);
    await insertMessages(db.pool, [aNewMessage({ dueAt: new Date(Date.now() + 2 * DAY) })], HOUR);
    const ids = batch.map((m) => m.id);
    const slots = partitionSlotsOf(ids, { awaitingPump: false });
    expect(await partitionsRead(CLAIM_SNAPSHOT_SQL, [ids, slots])).toEqual([dayPartition(batch[0].dueAt)]);
    const write = [
      ids,
      ids.map(() => 'sending'),
      ids.map(() => null),
      ids.map(() => null),
      ids.map(() => false),
    ];
    const none = Array.from({ length: 9 }, () => []);
    expect(await partitionsRead(CLAIM_WRITE_SQL, [...write, ...none, slots])).toEqual([
      dayPartition(batch[0].dueAt),
    ]);
  });

  it('a lookup by id (GET, cancel) reads the day its id names and the later partition, and finds either', async () => {
    const near = aNewMessage();
    const far = aNewMessage({ dueAt: new Date(Date.now() + 3 * DAY) });
    await insertMessages(db.pool, [near, far], HOUR);
    const found = await findMessages(db.pool, [near.id, far.id]);
    expect([...found.keys()].sort()).toEqual([near.id, far.id].sort());
    const sql = `SELECT id FROM scheduled_messages m WHERE id = ANY($1::uuid[]) AND ${inPartitionsOf('m', '$2')}`;
    const slots = partitionSlotsOf([near.id], { awaitingPump: true });
    expect(await partitionsRead(sql, [[near.id], slots])).toEqual(
      [dayPartition(near.dueAt), 'scheduled_messages_later'].sort(),
    );
  });
});

describe('idempotency keys across partitions', () => {
  it('a key repeated for another day (another partition) is still the first message: one row', async () => {
    const key = `idem-${randomUUID()}`;
    const first = aNewMessage({ idempotencyKey: key, requestHash: 'h' });
    const later = aNewMessage({
      idempotencyKey: key,
      requestHash: 'h',
      dueAt: new Date(Date.now() + 2 * DAY),
    });
    expect((await insertMessages(db.pool, [first], HOUR)).created).toHaveLength(1);
    const again = await insertMessages(db.pool, [later], HOUR);
    expect(again.created).toEqual([]);
    expect(again.existing.map((m) => m.id)).toEqual([first.id]);
    const { rows } = await db.pool.query('SELECT 1 FROM scheduled_messages WHERE idempotency_key = $1', [
      key,
    ]);
    expect(rows).toHaveLength(1);
  });
});

describe('creating partitions', () => {
  it('is idempotent and safe from several processes at once: one partition per span', async () => {
    const slot = new Date(Date.now() + 20 * DAY);
    const created = await Promise.all(
      Array.from({ length: 4 }, () => ensureMessagePartitions(db.pool, [slot], DAY)),
    );
    expect(created.reduce((a, b) => a + b, 0)).toBe(1);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM message_partitions() WHERE from_slot <= $1 AND $1 < to_slot`,
      [slot],
    );
    expect(rows[0].n).toBe(1);
  });

  it('a narrower span next to an existing day fits between its neighbours', async () => {
    const day = new Date(Math.floor(Date.now() / DAY) * DAY + 30 * DAY);
    await ensureMessagePartitions(db.pool, [day, new Date(day.getTime() + 2 * DAY)], DAY);
    await ensureMessagePartitions(db.pool, [new Date(day.getTime() + DAY + 5 * HOUR)], 2 * DAY);
    const { rows } = await db.pool.query<{ f: Date; t: Date }>(
      `SELECT from_slot AS f, to_slot AS t FROM message_partitions()
       WHERE from_slot >= $1 AND to_slot <= $1::timestamptz + interval '3 days' ORDER BY 1`,
      [day],
    );
    expect(rows.map((r) => [r.f.getTime() - day.getTime(), r.t.getTime() - day.getTime()])).toEqual([
      [0, DAY],
      [DAY, 2 * DAY],
      [2 * DAY, 3 * DAY],
    ]);
  });
});
