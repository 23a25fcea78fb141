import { randomBytes } from 'node:crypto';
import { openAccount } from '../../../src/accounts/account';
import { createSecretBox } from '../../../src/accounts/secret-box';
import {
  deleteAccount,
  findAccount,
  insertAccount,
  listAccounts,
  updateAccount,
} from '../../../src/store/accounts';
import { aStoredAccount } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());

const KEY = randomBytes(32);
const box = createSecretBox(KEY);

describe('the accounts store', () => {
  it('inserts an account once: a second insert of the app id writes nothing and answers null', async () => {
    const account = aStoredAccount(box);
    const stored = await insertAccount(db.pool, account);
    expect(stored).toMatchObject({ ...account, createdAt: expect.any(Date) });
    expect(await insertAccount(db.pool, { ...account, name: 'other' })).toBeNull();
    expect((await findAccount(db.pool, account.appId))?.name).toBeNull();
  });

  it('stores secrets sealed: the row holds no clear secret, and opens to it with the key', async () => {
    const account = aStoredAccount(box, {}, { secret: 'the-clear-app-secret', token: 'cleartoken' });
    await insertAccount(db.pool, account);
    const { rows } = await db.pool.query<{ row: string }>(
      `SELECT a::text AS row FROM accounts a WHERE app_id = $1`,
      [account.appId],
    );
    expect(rows[0].row).not.toContain('the-clear-app-secret');
    expect(rows[0].row).not.toContain('cleartoken');
    const opened = openAccount(box, (await findAccount(db.pool, account.appId))!);
    expect(opened).toMatchObject({ secret: 'the-clear-app-secret', token: 'cleartoken' });
  });

  it('updates only the given fields, a custom window policy as JSON, and deletes', async () => {
    const account = aStoredAccount(box);
    await insertAccount(db.pool, account);
    const rules = { count: 2, windowMs: 60_000 };
    const custom = { message: rules, subscribe: rules, scan: rules, click: rules };
    const updated = await updateAccount(db.pool, account.appId, { enabled: false, windowPolicy: custom });
    expect(updated).toMatchObject({
      enabled: false,
      windowPolicy: custom,
      secretSealed: account.secretSealed,
    });
    expect(await updateAccount(db.pool, 'wx-nobody', { enabled: false })).toBeNull();
    expect(await deleteAccount(db.pool, account.appId)).toBe(true);
    expect(await deleteAccount(db.pool, account.appId)).toBe(false);
    expect((await listAccounts(db.pool)).map((a) => a.appId)).not.toContain(account.appId);
  });
});
