import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Writable } from 'node:stream';
import { importBootstrapAccounts, storedFromEnv } from '../../src/accounts/bootstrap';
import { openAccount } from '../../src/accounts/account';
import { createSecretBox } from '../../src/accounts/secret-box';
import { loadConfig, type WechatAccount } from '../../src/config';
import {
  deleteAccount,
  deletedAt,
  findAccount,
  insertAccount,
  updateAccount,
} from '../../src/store/accounts';
import { anAccountBody } from '../helpers/builders';
import { createTestDb, type TestDb } from '../helpers/db';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());

const box = createSecretBox(randomBytes(32));

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** WECHAT_ACCOUNTS as the config reads it. */
function envAccounts(accounts: object[]): readonly WechatAccount[] {
  return loadConfig({ ADMIN_TOKEN: 'x'.repeat(16), WECHAT_ACCOUNTS: JSON.stringify(accounts) })
    .bootstrapAccounts;
}

describe('importing WECHAT_ACCOUNTS', () => {
  it('imports the absent accounts once: a second start imports nothing and changes nothing', async () => {
    const body = anAccountBody({ windowPolicy: 'legacy-48h', sendRatePerSecond: 50 });
    const accounts = envAccounts([body]);
    const { logger } = capturingLogger();

    const first = await importBootstrapAccounts({ pool: db.pool, box, logger }, accounts);
    const stored = await findAccount(db.pool, body.appId);
    const second = await importBootstrapAccounts({ pool: db.pool, box, logger }, accounts);

    expect(first).toEqual({ imported: [body.appId], kept: [], deleted: [] });
    expect(second).toEqual({ imported: [], kept: [body.appId], deleted: [] });
    expect(await findAccount(db.pool, body.appId)).toEqual(stored);
    expect(openAccount(box, stored!)).toMatchObject({
      secret: body.secret,
      token: body.token,
      windowPolicyInput: 'legacy-48h',
      sendRatePerSecond: 50,
      enabled: true,
    });
  });

  it('keeps a stored account that the env differs from, and warns naming the fields, never their values', async () => {
    const body = anAccountBody();
    const { logger, lines } = capturingLogger();
    await importBootstrapAccounts({ pool: db.pool, box, logger }, envAccounts([body]));
    await updateAccount(db.pool, body.appId, { sendRatePerSecond: 9 });
    const changedSecret = { ...body, secret: 'a-new-secret-in-env' };

    await importBootstrapAccounts({ pool: db.pool, box, logger }, envAccounts([changedSecret]));

    expect((await findAccount(db.pool, body.appId))?.sendRatePerSecond).toBe(9);
    const warning = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 40);
    expect(warning).toMatchObject({ appId: body.appId, fields: ['secret', 'sendRatePerSecond'] });
    expect(lines.join('')).not.toContain('a-new-secret-in-env');
    expect(lines.join('')).not.toContain(body.secret);
  });

  it('does not bring back an account deleted since, and says so; an account created again is kept again', async () => {
    const body = anAccountBody();
    const { logger, lines } = capturingLogger();
    await importBootstrapAccounts({ pool: db.pool, box, logger }, envAccounts([body]));
    expect(await deleteAccount(db.pool, body.appId)).toBe(true);

    const next = await importBootstrapAccounts({ pool: db.pool, box, logger }, envAccounts([body]));

    expect(next).toEqual({ imported: [], kept: [], deleted: [body.appId] });
    expect(await findAccount(db.pool, body.appId)).toBeNull();
    const warning = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 40);
    expect(warning).toMatchObject({ appId: body.appId, deletedAt: expect.any(String) });
    expect(String(warning?.msg)).toContain('remove it from WECHAT_ACCOUNTS');

    // Created again (POST /v1/accounts inserts the same way): it is the stored account again.
    const [a] = envAccounts([body]);
    const again = await insertAccount(db.pool, storedFromEnv(box, a));
    expect(again).not.toBeNull();
    expect(await deletedAt(db.pool, body.appId)).toBeNull();
    expect(await importBootstrapAccounts({ pool: db.pool, box, logger }, envAccounts([body]))).toEqual({
      imported: [],
      kept: [body.appId],
      deleted: [],
    });
  });

  it('without ACCOUNTS_ENCRYPTION_KEY, refuses to import, naming the account and writing nothing', async () => {
    const body = anAccountBody();
    const { logger } = capturingLogger();
    const importing = importBootstrapAccounts(
      { pool: db.pool, box: createSecretBox(null), logger },
      envAccounts([body]),
    );
    await expect(importing).rejects.toThrow(
      `ACCOUNTS_ENCRYPTION_KEY is not set: it is required to store the secret of WECHAT_ACCOUNTS' account ${body.appId}`,
    );
    expect(await findAccount(db.pool, body.appId)).toBeNull();
  });
});
