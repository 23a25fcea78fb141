import { randomUUID } from 'node:crypto';
import type { QueryConfig } from 'pg';
import { createPool, type PoolClient } from '../../../src/db/pool';
import { claimDue } from '../../../src/store/claim-due';
import { claimSnapshot } from '../../../src/store/claim-snapshot';
import { cancelOpenMessagesStatement } from '../../../src/store/cancel-by-ids';
import { claimWrite } from '../../../src/store/claim-write';
import { insertMessages } from '../../../src/store/insert-messages';
import {
  byIdStatement,
  ensureMessagePartitions,
  inPartitionsOf,
  partitionSlotsOf,
} from '../../../src/store/message-partitions';
import { messageIdTime, newMessageId } from '../../../src/store/message-id';
import { findMessages } from '../../../src/store/message-store';
import { aNewMessage, aTemplateMessage } from '../../helpers/builders';
import { createTestDb, TEST_DATABASE_URL, type TestDb } from '../../helpers/db';
import { silentLogger } from '../../helpers/logger';

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

/** A template message (no contact window to check) due at `dueAt`. */
const aTemplateDue = (dueAt: Date) =>
  aNewMessage({ channel: 'template', payload: aTemplateMessage(), dueAt });

/** A parameter as SQL: arrays of ids, words, times, booleans and nulls (all these tests pass). */
type Scalar = string | number | boolean | null;
function literalOf(client: PoolClient, value: Scalar | Scalar[]): string {
  if (!Array.isArray(value)) return value === null ? 'NULL' : client.escapeLiteral(String(value));
  const element = (v: Scalar) => (v === null ? 'NULL' : `"${String(v)}"`);
  return client.escapeLiteral(`{${value.map(element).join(',')}}`);
}

/** The partitions of scheduled_messages a statement read (planOf). */
const partitionsRead = async (statement: QueryConfig) => (await planOf(statement)).read;

/**
 * What a statement did, from EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) in a transaction rolled back: the
 * partitions of scheduled_messages in its plan that ran, and the buffers it hit. A named statement is read
 * as the service runs it (a prepared statement under a generic plan: partitions pruned when it runs), an
 * unnamed one — or a named one with `custom` — as planned for its values (a custom plan, as the first calls
 * on a connection get). `rowsScanned`: the rows its scans of scheduled_messages' partitions read (returned
 * or filtered out).
 */
async function planOf(
  statement: QueryConfig,
  opts: { custom?: boolean } = {},
): Promise<{ read: string[]; sharedHits: number; rowsScanned: number }> {
  const prepared = statement.name !== undefined && !opts.custom;
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    let explained = statement.text;
    if (prepared) {
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE read_partitions AS ${statement.text}`);
      explained = `EXECUTE read_partitions(${((statement.values ?? []) as (Scalar | Scalar[])[]).map((v) => literalOf(client, v)).join(', ')})`;
    }
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${explained}`,
      prepared ? [] : statement.values,
    );
    const read = new Set<string>();
    let rowsScanned = 0;
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
        const removed = ['Rows Removed by Filter', 'Rows Removed by Index Recheck'].map((k) =>
          Number(n[k] ?? 0),
        );
        rowsScanned += (Number(n['Actual Rows']) + removed[0] + removed[1]) * Number(n['Actual Loops']);
      }
      Object.values(n).forEach(walk);
    };
    const [top] = rows[0]['QUERY PLAN'] as { Plan: { 'Shared Hit Blocks': number } }[];
    walk(top);
    return { read: [...read].sort(), sharedHits: top.Plan['Shared Hit Blocks'], rowsScanned };
  } finally {
    await client.query('ROLLBACK');
    if (prepared) await client.query('DEALLOCATE read_partitions').catch(() => undefined);
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
  it('the claim (snapshot and write), prepared, reads only the day of its batch, not the other days nor the later one', async () => {
    const batch = [aNewMessage(), aNewMessage()];
    await insertMessages(db.pool, [...batch, aNewMessage({ dueAt: new Date(Date.now() + DAY) })], 4 * DAY);
    await insertMessages(db.pool, [aNewMessage({ dueAt: new Date(Date.now() + 2 * DAY) })], HOUR);
    const ids = batch.map((m) => m.id);
    const slots = partitionSlotsOf(ids, { awaitingPump: false });
    const snapshot = claimSnapshot([ids], slots);
    expect(await partitionsRead(snapshot)).toEqual([dayPartition(batch[0].dueAt)]);
    const write = [
      ids,
      ids.map(() => 'sending'),
      ids.map(() => null),
      ids.map(() => null),
      ids.map(() => false),
    ];
    const none = Array.from({ length: 9 }, () => []);
    expect(await partitionsRead(claimWrite([...write, ...none], slots))).toEqual([
      dayPartition(batch[0].dueAt),
    ]);
  });

  it('a lookup by id (GET, cancel) reads from the day its id names to the later partition, not the days before, and finds either', async () => {
    const near = aNewMessage();
    const far = aNewMessage({ dueAt: new Date(Date.now() + 3 * DAY) });
    await insertMessages(db.pool, [near, far], HOUR);
    const found = await findMessages(db.pool, [near.id, far.id]);
    expect([...found.keys()].sort()).toEqual([near.id, far.id].sort());
    const lookup = byIdStatement(
      'test_lookup',
      `SELECT id FROM scheduled_messages m WHERE id = ANY($1::uuid[]) AND ${inPartitionsOf('m')}`,
    );
    const slots = partitionSlotsOf([near.id], { awaitingPump: true });
    const read = await partitionsRead(lookup([[near.id]], slots));
    expect(read).toEqual(expect.arrayContaining([dayPartition(near.dueAt), 'scheduled_messages_later']));
    expect(read).not.toContain(dayPartition(new Date(Date.now() - DAY)));
    expect(read).not.toContain('scheduled_messages_legacy');
  });

  it('a batch spanning five days reads those days, and the claim finds every row', async () => {
    const days = Array.from({ length: 5 }, (_, d) => new Date(Date.now() - 1000 + d * DAY));
    const batch = days.map((dueAt) => aTemplateDue(dueAt));
    await insertMessages(db.pool, batch, 4 * DAY + HOUR);
    const ids = batch.map((m) => m.id);
    const snapshot = claimSnapshot([ids], partitionSlotsOf(ids, { awaitingPump: false }));
    expect(await partitionsRead(snapshot)).toEqual(days.map(dayPartition).sort());
    const claim = await claimDue(db.pool, ids, 20, []);
    expect(claim.claimed.map((m) => m.id)).toEqual([ids[0]]);
    expect(claim.early.map((m) => m.id).sort()).toEqual(ids.slice(1).sort());
  });

  it("100 messages falling due over a second (100 different times) cost the claim's read one index probe each", async () => {
    const start = Date.now() + 1000;
    const batch = Array.from({ length: 100 }, (_, i) => aTemplateDue(new Date(start + i * 10)));
    await insertMessages(db.pool, batch, HOUR);
    const ids = batch.map((m) => m.id);
    const plan = await planOf(claimSnapshot([ids], partitionSlotsOf(ids, { awaitingPump: false })));
    // A probe per (id, time) pair, as a list of the times made the index do, would hit ~30,000 buffers.
    expect(plan.sharedHits).toBeLessThan(2_000);
  });

  it('a cancellation by ids reads only its rows, under either plan: not the backlog awaiting the pump nor the rest of its day', async () => {
    const start = Date.now() + 10 * 60_000;
    const batch = Array.from({ length: 100 }, (_, i) => aTemplateDue(new Date(start + i * 10)));
    const rest = Array.from({ length: 10_000 }, (_, i) => aTemplateDue(new Date(start + 2_000 + i * 10)));
    const backlog = Array.from({ length: 20_000 }, (_, i) =>
      aTemplateDue(new Date(start + 2 * DAY + i * 100)),
    );
    await insertMessages(db.pool, [...batch, ...rest, ...backlog], HOUR);
    const cancel = cancelOpenMessagesStatement(batch.map((m) => ({ id: m.id, reason: 'r', actor: 'a' })));
    for (const custom of [false, true]) {
      const plan = await planOf(cancel, { custom });
      // Joined to their range instead, the ids would scan the 30,000 others. (The other days in the range,
      // a few rows from other tests, may be read whole: small, they cost less so than by index.)
      expect({ custom, scannedFew: plan.rowsScanned < 1_000 }).toEqual({ custom, scannedFew: true });
    }
  });

  it('a prepared statement sees a partition attached after it was prepared: the claim finds a message in a new day', async () => {
    const one = createPool({
      connectionString: TEST_DATABASE_URL,
      max: 1,
      logger: silentLogger,
      searchPath: db.schema,
    });
    try {
      const now = aTemplateDue(new Date(Date.now() - 1000));
      await insertMessages(one, [now], HOUR);
      expect((await claimDue(one, [now.id], 20, [])).claimed.map((m) => m.id)).toEqual([now.id]);
      const dueAt = new Date(Date.now() + 60 * DAY);
      expect(await ensureMessagePartitions(one, [dueAt], DAY)).toBe(1);
      const later = aTemplateDue(dueAt);
      await insertMessages(one, [later], 90 * DAY);
      expect((await claimDue(one, [later.id], 20, [])).early.map((m) => m.id)).toEqual([later.id]);
    } finally {
      await one.end();
    }
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
