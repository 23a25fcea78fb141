import { randomBytes } from 'node:crypto';
import { sealSecrets } from '../../src/accounts/account';
import { assertSealedValuesOpen } from '../../src/accounts/check-sealed';
import { refreshTokenContext } from '../../src/accounts/platform-tokens';
import { rotateSealedValues } from '../../src/accounts/rotate-keys';
import { accessTokenContext, SEALED_KINDS } from '../../src/accounts/sealed-kinds';
import { createSecretBox, keyIdOf, type SecretBox } from '../../src/accounts/secret-box';
import { codeContext, ticketContext } from '../../src/accounts/take-platform-event';
import { withTransaction } from '../../src/db/pool';
import { saveToken } from '../../src/store/access-tokens';
import { insertAccount } from '../../src/store/accounts';
import { saveAuthorization, saveComponentTicket, saveRefreshToken } from '../../src/store/platform';
import {
  listSealed,
  listSealedColumnsInSchema,
  SEALED_COLUMNS,
  type SealedColumn,
} from '../../src/store/sealed-values';
import { anAppId, aStoredAccount } from '../helpers/builders';
import { createTestDb, type TestDb } from '../helpers/db';

let db: TestDb;
beforeEach(async () => {
  db = await createTestDb({ poolSize: 3 });
});
afterEach(() => db.drop());

/** One stored value of every sealed kind, sealed by `box`; answers the app ids used. */
async function storeOneOfEach(box: SecretBox) {
  const own = anAppId();
  const platform = anAppId();
  const component = anAppId();
  await insertAccount(db.pool, {
    ...aStoredAccount(box, { appId: own }, { secret: 'own-secret', token: 'owntoken' }),
    ...sealSecrets(box, own, { previousEncodingAESKey: 'P'.repeat(43) }),
  });
  await insertAccount(db.pool, aStoredAccount(box, { appId: platform, kind: 'platform' }));
  await saveRefreshToken(db.pool, platform, box.seal('refresh@@@1', refreshTokenContext(platform)));
  await saveComponentTicket(db.pool, {
    componentAppId: component,
    ticketSealed: box.seal('ticket@@@1', ticketContext(component)),
    pushedAt: new Date(),
  });
  await saveAuthorization(db.pool, {
    authorizerAppId: platform,
    componentAppId: component,
    state: 'authorized',
    authorizationCodeSealed: box.seal('code@@@1', codeContext(platform)),
    authorizationCodeExpiresAt: new Date(Date.now() + 3_600_000),
    preAuthCode: null,
    eventAt: new Date(),
  });
  await withTransaction(db.pool, (c) =>
    saveToken(c, own, box.seal('access@@@1', accessTokenContext(own)), 7_200_000),
  );
  return { own, platform, component };
}

/** Every sealed value stored, by column, opened with `box`. */
async function openedWith(box: SecretBox): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const kind of SEALED_KINDS) {
    out[kind.column] = (await listSealed(db.pool, kind.column)).map((v) =>
      box.open(v.sealed, kind.context(v.rowKey)),
    );
  }
  return out;
}

describe('sealed values at rest', () => {
  it('the list of sealed columns covers every `…_sealed` column of the schema, and every kind has one', async () => {
    const listed = Object.values(SEALED_COLUMNS).map((c) => `${c.table}.${c.column}`);
    for (const column of await listSealedColumnsInSchema(db.pool)) expect(listed).toContain(column);
    expect(SEALED_KINDS.map((k) => k.column).sort()).toEqual(
      (Object.keys(SEALED_COLUMNS) as SealedColumn[]).sort(),
    );
  });

  it('rotation re-seals every kind with the new key, reports counts per kind, and a second run re-seals nothing', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    await storeOneOfEach(createSecretBox(oldKey));
    const before = await openedWith(createSecretBox(oldKey));
    const rotating = createSecretBox(newKey, [oldKey]);

    const first = await rotateSealedValues(db.pool, rotating);
    const second = await rotateSealedValues(db.pool, rotating);

    expect(first.map((k) => [k.kind, k.read, k.resealed])).toEqual([
      ['account secret', 2, 2],
      ['account token', 2, 2],
      ['account encodingAESKey', 0, 0],
      ['account previousEncodingAESKey', 1, 1],
      ['authorizer refresh token', 1, 1],
      ['component verify ticket', 1, 1],
      ['authorization code', 1, 1],
      ['access token', 1, 1],
    ]);
    expect(second.every((k) => k.resealed === 0)).toBe(true);
    // Only the new key is needed now, and every value is what it was.
    expect(await openedWith(createSecretBox(newKey))).toEqual(before);
    await expect(assertSealedValuesOpen(db.pool, createSecretBox(newKey))).resolves.toBeUndefined();
  });

  it('the start-up check names each value that does not open by kind, app id and key id, never the value', async () => {
    const oldKey = randomBytes(32);
    const { platform, component } = await storeOneOfEach(createSecretBox(oldKey));
    const check = assertSealedValuesOpen(db.pool, createSecretBox(randomBytes(32)));

    await expect(check).rejects.toMatchObject({ code: 'secret_key_error' });
    const message = ((await check.catch((e: Error) => e)) as Error).message;
    expect(message).toContain(`authorizer refresh token of ${platform} (sealed with key ${keyIdOf(oldKey)}`);
    expect(message).toContain(`component verify ticket of ${component}`);
    expect(message).toContain(`authorization code of ${platform}`);
    expect(message).toContain('ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS');
    expect(message).toContain('npm run rotate-account-keys');
    // The cached access token is no reason to refuse: it is fetched again.
    expect(message).not.toContain('access token of');
    for (const secret of ['own-secret', 'refresh@@@1', 'ticket@@@1', 'code@@@1', 'access@@@1'])
      expect(message).not.toContain(secret);
  });

  it('rotation without the key that sealed a durable value refuses and writes nothing; a cached token no key opens is discarded', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    await storeOneOfEach(createSecretBox(oldKey));
    const stored = async () => Promise.all(SEALED_KINDS.map((k) => listSealed(db.pool, k.column)));
    const before = await stored();

    await expect(rotateSealedValues(db.pool, createSecretBox(newKey))).rejects.toThrow(
      /do not open with ACCOUNTS_ENCRYPTION_KEY/,
    );
    expect(await stored()).toEqual(before);

    // Only the access token left under a key no longer configured: it goes, the rest is re-sealed.
    const withOld = createSecretBox(newKey, [oldKey]);
    await withTransaction(db.pool, (c) =>
      saveToken(
        c,
        'wxstale',
        createSecretBox(randomBytes(32)).seal('x', accessTokenContext('wxstale')),
        1000,
      ),
    );
    const report = await rotateSealedValues(db.pool, withOld);
    expect(report.find((k) => k.kind === 'access token')).toMatchObject({
      read: 2,
      resealed: 1,
      discarded: 1,
    });
    expect((await listSealed(db.pool, 'accessToken')).map((v) => v.rowKey)).not.toContain('wxstale');
  });
});
