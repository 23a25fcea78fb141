import { randomUUID } from 'node:crypto';
import { migrate } from '../../src/db/migrate';
import type { Service } from '../../src/main/start-service';
import { resetSchemaTo } from '../helpers/db';
import { APP_ID, createHarness, type Harness, waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';
import { aPruner } from '../integration/retention/rows';

/**
 * Issue 24: the upgrade of an existing database to partitioned messages (migration 0029,
 * docs/operations.md "Upgrading to partitioned messages"), on 1,000,000 messages written by the release
 * before it (random ids, one table): nothing is rewritten or copied, the migration takes seconds, and the
 * service then finds, sends, pumps, keeps idempotent and finally drops those rows like its own.
 */
const PARTITIONED = 29;
const FINISHED = 900_000;
const BACKLOG = 99_997;
const DAY_MS = 86_400_000;

let h: Harness;
let service: Service;
beforeAll(async () => {
  h = await createHarness({ RELAY_INTERVAL_MS: '200', RELAY_PENDING_AFTER_MS: '500' });
}, 60_000);
afterAll(() => h?.close(), 60_000);

/** Rows as the release before wrote them (its columns; ids random) — `n` of them, with the SQL given. */
async function legacyRows(
  n: number,
  fields: { status: string; due: string; updated: string; extra?: string },
) {
  await h.db.pool.query(
    `INSERT INTO scheduled_messages (id, app_id, openid, channel, payload, due_at, status, updated_at,
                                     idempotency_key, request_hash, awaiting_pump)
     SELECT gen_random_uuid(), $1, 'o-legacy-' || (i % 5000), 'custom',
            '{"msgtype":"text","text":{"content":"legacy"}}', ${fields.due}, $2, ${fields.updated},
            ${fields.extra ?? 'NULL, NULL, false'}
       FROM generate_series(1, $3::int) i`,
    [APP_ID, fields.status, n],
  );
}

/** One tagged row of the release before; returns its id. */
async function legacyRow(tag: string, sql: { due: string; awaitingPump: boolean; key?: string }) {
  const id = randomUUID();
  await h.db.pool.query(
    `INSERT INTO scheduled_messages (id, app_id, openid, channel, payload, due_at, status, idempotency_key,
                                     request_hash, awaiting_pump)
     VALUES ($1, $2, $3, 'custom', $4, ${sql.due}, 'queued', $5, $6, $7)`,
    [
      id,
      APP_ID,
      `o-${tag}`,
      JSON.stringify({ msgtype: 'text', text: { content: tag } }),
      sql.key ?? null,
      sql.key ? 'hash-of-the-release-before' : null,
      sql.awaitingPump,
    ],
  );
  return id;
}

const tableFile = async (table: string) =>
  (await h.db.pool.query<{ f: string }>('SELECT pg_relation_filenode($1)::text AS f', [table])).rows[0].f;

describe('upgrading 1,000,000 messages to partitioned ones', () => {
  const ids: Record<string, string> = {};
  let migrationMs = 0;

  it('migrates without rewriting or copying the messages, in seconds', async () => {
    await resetSchemaTo(h.db, PARTITIONED);
    // Finished 10–40 days ago, a tenth with idempotency keys, a ninth with an attempt; a backlog awaiting the pump.
    await legacyRows(FINISHED, {
      status: 'sent',
      due: `now() - (10 + i % 30) * interval '1 day'`,
      updated: `now() - (10 + i % 30) * interval '1 day'`,
      extra: `CASE WHEN i % 10 = 0 THEN 'legacy-' || i END, CASE WHEN i % 10 = 0 THEN 'h' END, false`,
    });
    await h.db.pool.query(
      `INSERT INTO delivery_attempts (message_id, attempt, duration_ms, outcome)
       SELECT id, 1, 20, 'sent' FROM scheduled_messages WHERE status = 'sent' LIMIT 100000`,
    );
    await legacyRows(BACKLOG, {
      status: 'queued',
      due: `now() + (2 + i % 28) * interval '1 day'`,
      updated: 'now()',
      extra: 'NULL, NULL, true',
    });
    // Its publish not confirmed before the upgrade (in the outbox); due beyond the horizon (awaiting the pump);
    // a key the release before recorded.
    ids.outboxed = await legacyRow('outboxed', { due: `now() + interval '2 seconds'`, awaitingPump: false });
    await h.db.pool.query('INSERT INTO wake_up_outbox (message_ids) VALUES (ARRAY[$1::uuid])', [
      ids.outboxed,
    ]);
    ids.pumped = await legacyRow('pumped', { due: `now() + interval '3 seconds'`, awaitingPump: true });
    ids.keyed = await legacyRow('keyed', {
      due: `now() + interval '20 days'`,
      awaitingPump: true,
      key: 'kept',
    });
    await h.db.pool.query('ANALYZE scheduled_messages, delivery_attempts');
    const files = [await tableFile('scheduled_messages'), await tableFile('delivery_attempts')];

    const started = Date.now();
    // Later migrations (journeys' tables, 0030 on) follow it in the same call: none touches the messages.
    expect((await migrate(h.db.pool, silentLogger))[0]).toBe('0029_partitioned_messages.sql');
    migrationMs = Date.now() - started;
    console.info(`migration 0029 on ${FINISHED + BACKLOG + 3} messages: ${migrationMs} ms`);

    // The same files, now the legacy partitions: nothing was rewritten.
    expect([
      await tableFile('scheduled_messages_legacy'),
      await tableFile('delivery_attempts_legacy'),
    ]).toEqual(files);
    const { rows } = await h.db.pool.query<{ p: string; n: number }>(
      `SELECT tableoid::regclass::text AS p, count(*)::int AS n FROM scheduled_messages GROUP BY 1`,
    );
    expect(rows).toEqual([{ p: 'scheduled_messages_legacy', n: FINISHED + BACKLOG + 3 }]);
    const keys = await h.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM message_idempotency_keys',
    );
    expect(keys.rows[0].n).toBe(FINISHED / 10 + 1);
    expect(migrationMs).toBeLessThan(60_000);
  }, 300_000);

  it('then the service sends the rows waiting for it once, finds them by id, and keeps their keys', async () => {
    service = await h.start();
    const received = (tag: string) => h.simulator.messages().filter((m) => m.openid === `o-${tag}`).length;
    expect(await waitFor(() => received('outboxed') >= 1 && received('pumped') >= 1, 20_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000)); // a moment in which a duplicate would arrive
    expect([received('outboxed'), received('pumped')]).toEqual([1, 1]);

    const found = await h.api(service, `/v1/messages/${ids.keyed}`);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { status: string }).status).toBe('queued');
    // The key the release before recorded is still taken.
    const reused = await h.api(service, '/v1/messages', {
      method: 'POST',
      body: JSON.stringify({
        appId: APP_ID,
        openid: 'o-someone-else',
        channel: 'custom',
        message: { msgtype: 'text', text: { content: 'other' } },
        idempotencyKey: 'kept',
      }),
    });
    expect(reused.status).toBe(409);
  }, 60_000);

  it('retention keeps the legacy partition while a message of it is open, and drops it whole once none is', async () => {
    const { pruner } = aPruner(h.db.pool, { finishedAfterMs: DAY_MS });
    expect(await pruner.runOnce()).toMatchObject({ messages: 0 });
    await h.db.pool.query(
      `UPDATE scheduled_messages SET status = 'cancelled', updated_at = now() - interval '2 days'
        WHERE due_slot = '-infinity' AND status IN ('queued', 'sending')`,
    );
    await h.db.pool.query(
      `UPDATE scheduled_messages SET updated_at = now() - interval '2 days' WHERE due_slot = '-infinity'`,
    );
    const started = Date.now();
    expect(await pruner.runOnce()).toMatchObject({ messages: FINISHED + BACKLOG + 3 });
    console.info(`dropping the legacy partition: ${Date.now() - started} ms`);
    const left = await h.db.pool.query(`SELECT to_regclass('scheduled_messages_legacy') AS t`);
    expect(left.rows[0].t).toBeNull();
    const keys = await h.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM message_idempotency_keys',
    );
    expect(keys.rows[0].n).toBe(0);
  }, 300_000);
});
