import { type KeyRegistry, startKeyRegistry } from '../../../src/access/key-registry';
import { keyDigest, keyHint, newKeyToken } from '../../../src/access/key-token';
import { withTransaction } from '../../../src/db/pool';
import { insertKey, revokeKey } from '../../../src/store/api-keys';
import { createTestDb, TEST_DATABASE_URL, type TestDb } from '../../helpers/db';
import { msUntil, waitFor } from '../../helpers/harness';
import { silentLogger } from '../../helpers/logger';

// docs/api.md "API keys": each api process holds the unrevoked keys in memory; a key made or revoked
// anywhere reaches every process by the table's notification, or by the periodic re-read if one is lost.
let db: TestDb;
const registries: KeyRegistry[] = [];

beforeAll(async () => {
  db = await createTestDb({ poolSize: 3 });
});
afterAll(async () => {
  for (const r of registries) await r.stop();
  await db.drop();
});

async function registry(refreshMs = 3_600_000): Promise<KeyRegistry> {
  const r = await startKeyRegistry({
    pool: db.pool,
    logger: silentLogger,
    connectionString: TEST_DATABASE_URL,
    searchPath: db.schema,
    refreshMs,
  });
  registries.push(r);
  return r;
}

async function aKey(): Promise<{ id: string; token: string }> {
  const token = newKeyToken();
  const key = await withTransaction(db.pool, (c) =>
    insertKey(c, {
      name: 'crm',
      digest: keyDigest(token),
      hint: keyHint(token),
      appIds: ['wx0000000000000001'],
      operations: ['schedule', 'read'],
    }),
  );
  return { id: key.id, token };
}

describe('the key registry', () => {
  it('finds a key by its value with its accounts and operations, and nothing by a wrong or malformed one', async () => {
    const { id, token } = await aKey();
    const r = await registry();
    expect(r.isLoaded()).toBe(true);
    const found = r.find(token);
    expect(found).toMatchObject({ id, name: 'crm' });
    expect([...found!.appIds]).toEqual(['wx0000000000000001']);
    expect([...found!.operations].sort()).toEqual(['read', 'schedule']);
    expect(r.find(newKeyToken())).toBeUndefined();
    expect(r.find(`${token}x`)).toBeUndefined();
    expect(r.find(token.slice(0, -1))).toBeUndefined();
  });

  it('sees a key made, then revoked, in another process within 2 s each, with no periodic re-read', async () => {
    const [a, b] = [await registry(), await registry()];
    const { id, token } = await aKey();
    const made = await msUntil(() => a.find(token) !== undefined && b.find(token) !== undefined);
    await withTransaction(db.pool, (c) => revokeKey(c, id));
    const revoked = await msUntil(() => a.find(token) === undefined && b.find(token) === undefined);

    process.stdout.write(`key registry: a new key seen after ${made} ms, a revocation after ${revoked} ms\n`);
    expect(made).toBeLessThan(2000);
    expect(revoked).toBeLessThan(2000);
  });

  it('picks up a revocation that sent no notification at its next periodic re-read', async () => {
    const r = await registry(300);
    const { id, token } = await aKey();
    expect(await waitFor(() => r.find(token) !== undefined, 5000, 10)).toBe(true);
    await db.pool.query('ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed');
    try {
      await withTransaction(db.pool, (c) => revokeKey(c, id));
      expect(await msUntil(() => r.find(token) === undefined)).toBeLessThan(3000);
    } finally {
      await db.pool.query('ALTER TABLE api_keys ENABLE TRIGGER api_keys_changed');
    }
  });
});
