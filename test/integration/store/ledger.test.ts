import { randomUUID } from 'node:crypto';
import { CANCEL_SCOPES, LEDGER_COVERS } from '../../../src/store/ledger';
import { createTestDb, type TestDb } from '../../helpers/db';
import { messageIdSql } from '../../helpers/message-rows';

/** The ledger's one condition, read directly: which of the account's messages a cancellation covers. */
let db: TestDb;
const APP = 'wx-ledger';

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => db.drop());

async function message(fields: {
  openid?: string;
  cancelKey?: string;
  sequenceId?: string;
  enrollmentId?: string;
  appId?: string;
}): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO scheduled_messages (id, due_slot, app_id, openid, channel, payload, due_at, cancel_key,
                                     sequence_id, enrollment_id)
     SELECT id, message_slot(id), $1, $2, 'custom', '{"msgtype":"text","text":{"content":"x"}}', now() + interval '1 hour',
            $3, $4, $5
       FROM (SELECT ${messageIdSql(`now() + interval '1 hour'`)} AS id) i
     RETURNING id`,
    [
      fields.appId ?? APP,
      fields.openid ?? `o-${randomUUID()}`,
      fields.cancelKey ?? null,
      fields.sequenceId ?? null,
      fields.enrollmentId ?? null,
    ],
  );
  return rows[0].id;
}

async function cancel(scope: string, target: string, appId = APP): Promise<void> {
  await db.pool.query(
    `INSERT INTO cancellations (app_id, scope, target, reason, actor) VALUES ($1, $2, $3, 'test', 'test')`,
    [appId, scope, target],
  );
}

async function covered(ids: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT m.id FROM scheduled_messages m WHERE m.id = ANY($1::uuid[]) AND ${LEDGER_COVERS('m')}`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

describe('LEDGER_COVERS', () => {
  it.each(CANCEL_SCOPES.filter((s) => s !== 'account'))(
    'a %s cancellation covers its own messages of the account, created before it, and nothing else',
    async (scope) => {
      const [openid, key, sequenceId, enrollmentId] = [
        `o-${randomUUID()}`,
        `k-${randomUUID()}`,
        randomUUID(),
        randomUUID(),
      ];
      const aimed = await message({ openid, cancelKey: key, sequenceId, enrollmentId });
      const bystander = await message({ cancelKey: `k-${randomUUID()}` });
      const otherAccount = await message({
        appId: 'wx-other',
        openid,
        cancelKey: key,
        sequenceId,
        enrollmentId,
      });
      const target = {
        message: aimed,
        cancel_key: key,
        follower: openid,
        sequence: sequenceId,
        enrollment: enrollmentId,
      }[scope];
      await cancel(scope, target);
      const later = await message({ openid, cancelKey: key, sequenceId, enrollmentId });

      const hit = await covered([aimed, bystander, otherAccount, later]);
      expect([...hit]).toEqual([aimed]);
    },
  );

  it('an account cancellation covers every message of the account created before it, and nothing else', async () => {
    const [first, second] = [await message({}), await message({ cancelKey: `k-${randomUUID()}` })];
    const otherAccount = await message({ appId: 'wx-other' });
    await cancel('account', APP);
    const later = await message({});

    const hit = await covered([first, second, otherAccount, later]);
    expect([...hit].sort()).toEqual([first, second].sort());
  });

  it('probes the index by scope and target, not every ledger row of the account, even without statistics', async () => {
    // A fresh ledger of 4,000 rows for the account that the planner has no statistics for (a new install
    // before autovacuum's first ANALYZE). One EXISTS with the scopes OR-ed inside read all 4,000 here.
    const fresh = await createTestDb();
    try {
      await fresh.pool.query(
        `INSERT INTO scheduled_messages (id, due_slot, app_id, openid, channel, payload, due_at, cancel_key)
         SELECT id, message_slot(id), $1, 'o-' || i, 'custom', '{}', now(), 'k-' || (i % 10)
           FROM (SELECT i, ${messageIdSql('now()')} AS id FROM generate_series(1, 200) i) r`,
        [APP],
      );
      await fresh.pool.query(
        `INSERT INTO cancellations (app_id, scope, target, reason, actor)
         SELECT $1, 'message', gen_random_uuid()::text, 'r', 'a' FROM generate_series(1, 4000)`,
        [APP],
      );
      const { rows } = await fresh.pool.query<{ 'QUERY PLAN': unknown[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) SELECT m.id, ${LEDGER_COVERS('m')} FROM scheduled_messages m`,
      );
      // Every ledger row the plan reads is one of the other messages' rows: none may be read at all.
      let read = 0;
      let ledgerNodes = 0;
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'cancellations') {
          ledgerNodes++;
          read += Number(node['Actual Rows']) * Number(node['Actual Loops']);
          read +=
            Number(node['Rows Removed by Filter'] ?? 0) + Number(node['Rows Removed by Index Recheck'] ?? 0);
        }
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((rows[0]['QUERY PLAN'][0] as { Plan: Record<string, unknown> }).Plan);

      expect(ledgerNodes).toBeGreaterThan(0);
      expect(read).toBe(0);
    } finally {
      await fresh.drop();
    }
  });
});
