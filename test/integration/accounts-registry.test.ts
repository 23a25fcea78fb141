import { randomBytes } from 'node:crypto';
import { type AccountRegistry, startAccountRegistry } from '../../src/accounts/registry';
import { createSecretBox } from '../../src/accounts/secret-box';
import { migrate } from '../../src/db/migrate';
import { createPool } from '../../src/db/pool';
import { insertAccount, updateAccount } from '../../src/store/accounts';
import { aStoredAccount } from '../helpers/builders';
import { createTestDb, TEST_DATABASE_URL, type TestDb } from '../helpers/db';
import { msUntil, waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';

let db: TestDb;
const registries: AccountRegistry[] = [];
const KEY = randomBytes(32);
const box = createSecretBox(KEY);

beforeAll(async () => {
  db = await createTestDb({ poolSize: 3 });
});
afterAll(async () => {
  for (const r of registries) await r.stop();
  await db.drop();
});

async function registry(refreshMs = 3_600_000, key: Buffer | null = KEY): Promise<AccountRegistry> {
  const r = await startAccountRegistry({
    pool: db.pool,
    box: createSecretBox(key),
    logger: silentLogger,
    connectionString: TEST_DATABASE_URL,
    searchPath: db.schema,
    refreshMs,
  });
  registries.push(r);
  return r;
}

describe('the account registry', () => {
  it('loads the accounts with their secrets opened', async () => {
    const stored = aStoredAccount(box, {}, { secret: 'loaded-secret' });
    await insertAccount(db.pool, stored);
    const r = await registry();
    expect(r.get(stored.appId)).toMatchObject({ appId: stored.appId, secret: 'loaded-secret' });
    expect(r.all().map((a) => a.appId)).toContain(stored.appId);
  });

  it('sees a new account and a change through its notification within 2 s, with no periodic re-read', async () => {
    const r = await registry();
    const stored = aStoredAccount(box);
    await insertAccount(db.pool, stored);
    const created = await msUntil(() => r.get(stored.appId) !== undefined);
    await updateAccount(db.pool, stored.appId, { sendRatePerSecond: 7 });
    const changed = await msUntil(() => r.get(stored.appId)?.sendRatePerSecond === 7);

    process.stdout.write(`registry: an insert seen after ${created} ms, an update after ${changed} ms\n`);
    expect(created).toBeLessThan(2000);
    expect(changed).toBeLessThan(2000);
  });

  it('picks up a change that sent no notification at its next periodic re-read', async () => {
    const r = await registry(300);
    const stored = aStoredAccount(box);
    await db.pool.query('ALTER TABLE accounts DISABLE TRIGGER accounts_changed');
    try {
      await insertAccount(db.pool, stored);
      expect(await waitFor(() => r.get(stored.appId) !== undefined, 2000, 20)).toBe(true);
    } finally {
      await db.pool.query('ALTER TABLE accounts ENABLE TRIGGER accounts_changed');
    }
  });

  it('listens again after its connection was cut (a Postgres restart), and re-reads what it missed', async () => {
    const r = await registry();
    const listeners = `SELECT pid FROM pg_stat_activity WHERE application_name = $1`;
    const name = `wechat-drip listener ${db.schema}`;
    const before = (await db.pool.query<{ pid: number }>(listeners, [name])).rows.map((x) => x.pid);
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
      [name],
    );
    const missed = aStoredAccount(box);
    await insertAccount(db.pool, missed);
    expect(await waitFor(() => r.get(missed.appId) !== undefined, 5000, 20)).toBe(true);
    // Listening again: a fresh backend, and a change is seen through its notification.
    expect(
      await waitFor(async () => {
        const now = (await db.pool.query<{ pid: number }>(listeners, [name])).rows.map((x) => x.pid);
        return now.length >= before.length && now.every((pid) => !before.includes(pid));
      }, 5000),
    ).toBe(true);
    await updateAccount(db.pool, missed.appId, { atLeastOnce: true });
    expect(await msUntil(() => r.get(missed.appId)?.atLeastOnce === true)).toBeLessThan(2000);
  });

  it('starts unready while the accounts table is not there (not migrated yet), and reads it once it is', async () => {
    const schema = `${db.schema}_late`;
    await db.pool.query(`CREATE SCHEMA ${schema}`);
    const pool = createPool({
      connectionString: TEST_DATABASE_URL,
      max: 2,
      logger: silentLogger,
      searchPath: schema,
    });
    try {
      const stored = aStoredAccount(box);
      const r = await startAccountRegistry({
        pool,
        box,
        logger: silentLogger,
        connectionString: TEST_DATABASE_URL,
        searchPath: schema,
        refreshMs: 3_600_000,
        prepare: () => insertAccount(pool, stored).then(() => undefined),
      });
      registries.push(r);
      expect(r.isLoaded()).toBe(false);
      expect(r.all()).toEqual([]);

      await migrate(pool, silentLogger);

      expect(await waitFor(() => r.isLoaded(), 5000)).toBe(true);
      expect(r.get(stored.appId)?.appId).toBe(stored.appId);
    } finally {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    }
  });

  it('refuses to start when a secret does not open, naming the account and the key problem, not the secret', async () => {
    const stored = aStoredAccount(box, {}, { secret: 'never-shown-secret' });
    await insertAccount(db.pool, stored);
    const refused = (await registry(3_600_000, randomBytes(32)).catch((err: Error) => err)) as Error;
    // The accounts are read in app id order: the first of them names the problem.
    expect(refused.message).toMatch(
      /^account wx[0-9a-f]{16} secret was sealed with key [0-9a-f]{8}, which is neither/,
    );
    expect(refused.message).not.toContain('never-shown-secret');
    await expect(registry(3_600_000, null)).rejects.toThrow(/ACCOUNTS_ENCRYPTION_KEY is not set/);
  });
});
