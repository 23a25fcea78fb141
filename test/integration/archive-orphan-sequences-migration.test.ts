import { migrate } from '../../src/db/migrate';
import { createTestDb, resetSchemaTo, type TestDb } from '../helpers/db';
import { silentLogger } from '../helpers/logger';

/**
 * Migration 0034 archives the sequences of accounts deleted before deleting an account archived them,
 * and ends their journeys' open waits; it leaves alone the sequences of accounts that exist, and those
 * of a database upgraded from before 0010, whose accounts table is still empty while the migrations run
 * (WECHAT_ACCOUNTS is imported after them).
 */
const ARCHIVE_ORPHANS = 34;

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db?.drop());

// Rows as that schema holds them, written with its columns: the store writes today's.
async function anAccountRow(appId: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO accounts (app_id, push_mode, window_policy, send_rate_per_second)
     VALUES ($1, 'plaintext', '"none"'::jsonb, 10)`,
    [appId],
  );
}

/** A sequence of `appId` in `status`, last changed a day ago; returns its id. */
async function aSequenceRow(appId: string, status: string): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO sequences (app_id, name, status, created_at, updated_at)
     VALUES ($1, $2, $3, now() - interval '1 day', now() - interval '1 day') RETURNING id`,
    [appId, `${appId} ${status}`, status],
  );
  await db.pool.query(
    `INSERT INTO sequence_versions (sequence_id, version, trigger, steps, paths, exits)
     VALUES ($1, 1, '{"type":"api"}', '[]', '{}', '[]')`,
    [rows[0].id],
  );
  return rows[0].id;
}

/** An enrollment of the sequence waiting (an open journey wait) for a day more. */
async function anOpenWait(sequenceId: string, appId: string): Promise<void> {
  await db.pool.query(
    `WITH e AS (
       INSERT INTO enrollments (app_id, openid, sequence_id, version, dedupe)
       VALUES ($2, 'o-waiting', $1, 1, gen_random_uuid()::text) RETURNING id
     )
     INSERT INTO journey_waits (enrollment_id, path, app_id, openid, sequence_id, version, condition, starts_at, deadline)
     SELECT e.id, 'main', $2, 'o-waiting', $1, 1, '{"type":"message"}', now(), now() + interval '1 day' FROM e`,
    [sequenceId, appId],
  );
}

async function accountDeletedBefore(appId: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO cancellations (app_id, scope, target, reason, actor)
     VALUES ($1, 'account', $1, 'account_deleted', 'api')`,
    [appId],
  );
}

const statusOf = async (id: string) =>
  (
    await db.pool.query<{ status: string; changed: boolean }>(
      `SELECT status, updated_at > now() - interval '1 hour' AS changed FROM sequences WHERE id = $1`,
      [id],
    )
  ).rows[0];

const openWaitsOf = async (id: string) =>
  (
    await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM journey_waits WHERE sequence_id = $1 AND outcome IS NULL`,
      [id],
    )
  ).rows[0].n;

describe('migration 0034 (sequences of deleted accounts archived)', () => {
  it('archives the active, paused and draft sequences of an account that is gone and ends their waits; the others stay as they were', async () => {
    await resetSchemaTo(db, ARCHIVE_ORPHANS);
    await anAccountRow('wxkept');
    const kept = await aSequenceRow('wxkept', 'active');
    await anOpenWait(kept, 'wxkept');
    const goneActive = await aSequenceRow('wxgone', 'active');
    await anOpenWait(goneActive, 'wxgone');
    const gonePaused = await aSequenceRow('wxgone', 'paused');
    const goneDraft = await aSequenceRow('wxgone', 'draft');
    const goneArchived = await aSequenceRow('wxgone', 'archived');

    expect((await migrate(db.pool, silentLogger))[0]).toMatch(/^0034_/);

    expect(await statusOf(goneActive)).toEqual({ status: 'archived', changed: true });
    expect(await statusOf(gonePaused)).toEqual({ status: 'archived', changed: true });
    expect(await statusOf(goneDraft)).toEqual({ status: 'archived', changed: true });
    expect(await statusOf(goneArchived)).toEqual({ status: 'archived', changed: false });
    expect(await openWaitsOf(goneActive)).toBe(0);
    expect(await statusOf(kept)).toEqual({ status: 'active', changed: false });
    expect(await openWaitsOf(kept)).toBe(1);
  });

  it('with no account in the table (an upgrade from before 0010), archives only where a deletion left its ledger row', async () => {
    await resetSchemaTo(db, ARCHIVE_ORPHANS);
    const fromEnv = await aSequenceRow('wxfromenv', 'active');
    const deleted = await aSequenceRow('wxdeleted', 'active');
    await accountDeletedBefore('wxdeleted');

    await migrate(db.pool, silentLogger);

    expect(await statusOf(fromEnv)).toEqual({ status: 'active', changed: false });
    expect(await statusOf(deleted)).toEqual({ status: 'archived', changed: true });
  });
});
