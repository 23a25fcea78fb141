import { randomBytes } from 'node:crypto';
import { refreshTokenContext } from '../../src/accounts/platform-tokens';
import { createSecretBox, keyIdOf } from '../../src/accounts/secret-box';
import { ticketContext } from '../../src/accounts/take-platform-event';
import { insertAccount } from '../../src/store/accounts';
import { saveComponentTicket, saveRefreshToken } from '../../src/store/platform';
import { anAccountBody, anAppId, aStoredAccount } from '../helpers/builders';
import { ACCOUNTS_ENCRYPTION_KEY, createHarness, type Harness } from '../helpers/harness';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const CURRENT = Buffer.from(ACCOUNTS_ENCRYPTION_KEY, 'base64');

/** Every row of every table holding sealed values, as text: what a refused start must leave as it was. */
async function sealedTables(): Promise<string> {
  const { rows } = await h.db.pool.query<{ rows: string }>(
    `SELECT (SELECT coalesce(json_agg(a ORDER BY app_id), '[]') FROM accounts a)::text
         || (SELECT coalesce(json_agg(t ORDER BY component_app_id), '[]') FROM component_tickets t)::text
         || (SELECT coalesce(json_agg(p ORDER BY authorizer_app_id), '[]') FROM platform_authorizations p)::text
         || (SELECT coalesce(json_agg(k ORDER BY app_id), '[]') FROM access_tokens k)::text AS rows`,
  );
  return rows[0].rows;
}

describe('starting with the encryption keys', () => {
  it('refuses when a stored platform secret does not open with the configured keys, naming its kind, app id and key, never the value', async () => {
    // The accounts' own secrets were re-sealed with the current key; the platform's were not.
    const older = randomBytes(32);
    const component = anAppId();
    const platform = anAppId();
    await insertAccount(
      h.db.pool,
      aStoredAccount(createSecretBox(CURRENT), { appId: platform, kind: 'platform' }),
    );
    await saveRefreshToken(
      h.db.pool,
      platform,
      createSecretBox(older).seal('refresh@@@never-shown', refreshTokenContext(platform)),
    );
    await saveComponentTicket(h.db.pool, {
      componentAppId: component,
      ticketSealed: createSecretBox(older).seal('ticket@@@never-shown', ticketContext(component)),
      pushedAt: new Date(),
    });

    const refused = (await h.start().catch((err: Error) => err)) as Error;

    expect(refused).toBeInstanceOf(Error);
    expect(refused.message).toContain(
      `authorizer refresh token of ${platform} (sealed with key ${keyIdOf(older)}, not configured)`,
    );
    expect(refused.message).toContain(`component verify ticket of ${component}`);
    expect(refused.message).toMatch(/ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS.*npm run rotate-account-keys/);
    expect(refused.message).not.toContain('never-shown');
    // With the older key among the previous ones, it starts.
    const service = await h.start({ ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: older.toString('base64') });
    expect(service.accounts.get(platform)?.kind).toBe('platform');
  });

  it('a start with a wrong key writes nothing, not even the WECHAT_ACCOUNTS accounts it was given, then refuses', async () => {
    const first = await h.start();
    await first.stop();
    const before = await sealedTables();
    const wrongKey = randomBytes(32).toString('base64');
    const added = anAccountBody();

    const refused = h.start({
      ACCOUNTS_ENCRYPTION_KEY: wrongKey,
      WECHAT_ACCOUNTS: JSON.stringify([JSON.parse(h.env.WECHAT_ACCOUNTS)[0], added]),
    });

    const error = (await refused.catch((err: Error) => err)) as Error;
    expect(await sealedTables()).toEqual(before);
    expect(before).not.toContain(added.appId);
    expect(error.message).toMatch(/do not open with ACCOUNTS_ENCRYPTION_KEY/);
  });
});
