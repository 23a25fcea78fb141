import type { WechatAccount } from '../config';
import { DEFAULT_TIME_ZONE } from '../contract';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { deletedAt, findAccount, insertAccount, type NewStoredAccount } from '../store/accounts';
import { openAccount, sealAllSecrets } from './account';
import { SecretKeyError, type SecretBox } from './secret-box';

/**
 * Imports WECHAT_ACCOUNTS into the accounts table, idempotently: an absent account is inserted (its
 * secrets sealed); one already stored is left as it is — the table, changed through /v1/accounts, is the
 * truth — and an env entry that differs from it is logged as a warning naming the fields (never their
 * values). An account deleted (through the API, or the page) is not brought back: a warning says so, until
 * it leaves WECHAT_ACCOUNTS or is created again. Every process may run it at once: the insert does nothing
 * for an app id that exists.
 */
export async function importBootstrapAccounts(
  deps: { pool: Pool; box: SecretBox; logger: Logger },
  accounts: readonly WechatAccount[],
): Promise<{ imported: string[]; kept: string[]; deleted: string[] }> {
  const { pool, box, logger } = deps;
  const imported: string[] = [];
  const kept: string[] = [];
  const deleted: string[] = [];
  for (const a of accounts) {
    if (box.keyId === null) {
      throw new SecretKeyError(
        `ACCOUNTS_ENCRYPTION_KEY is not set: it is required to store the secret of WECHAT_ACCOUNTS' account ${a.appId}`,
      );
    }
    const gone = await deletedAt(pool, a.appId);
    if (gone) {
      deleted.push(a.appId);
      logger.warn(
        { appId: a.appId, deletedAt: gone.toISOString() },
        'WECHAT_ACCOUNTS lists an account that was deleted: not imported again (remove it from WECHAT_ACCOUNTS, or create it again through POST /v1/accounts)',
      );
      continue;
    }
    const inserted = await insertAccount(pool, storedFromEnv(box, a));
    if (inserted) {
      imported.push(a.appId);
      continue;
    }
    kept.push(a.appId);
    const stored = await findAccount(pool, a.appId);
    const differing = stored ? differingFields(a, openAccount(box, stored)) : [];
    if (differing.length > 0) {
      logger.warn(
        { appId: a.appId, fields: differing },
        'WECHAT_ACCOUNTS differs from the stored account, which is kept (change it through /v1/accounts)',
      );
    }
  }
  if (imported.length > 0) logger.info({ appIds: imported }, 'accounts imported from WECHAT_ACCOUNTS');
  return { imported, kept, deleted };
}

/** A WECHAT_ACCOUNTS entry as the row it is imported as (an own account, enabled, its secrets sealed). */
export function storedFromEnv(box: SecretBox, a: WechatAccount): NewStoredAccount {
  return {
    appId: a.appId,
    name: null,
    kind: 'own',
    enabled: true,
    ...sealAllSecrets(box, a.appId, a),
    pushMode: a.pushMode,
    windowPolicy: a.windowPolicy,
    sendRatePerSecond: a.sendRatePerSecond,
    atLeastOnce: a.atLeastOnce,
    timeZone: DEFAULT_TIME_ZONE,
  };
}

const COMPARED = [
  'secret',
  'token',
  'encodingAESKey',
  'previousEncodingAESKey',
  'pushMode',
  'sendRatePerSecond',
  'atLeastOnce',
] as const;

function differingFields(env: WechatAccount, stored: ReturnType<typeof openAccount>): string[] {
  const fields: string[] = COMPARED.filter((f) => env[f] !== stored[f]);
  if (JSON.stringify(env.windowPolicy) !== JSON.stringify(stored.windowPolicyInput))
    fields.push('windowPolicy');
  return fields;
}
