import type { CreatedKey, CreateKeyRequest, KeyView } from '../contract';
import { type Pool, withTransaction } from '../db/pool';
import { NotFoundError, ValidationError } from '../errors';
import { existingAppIds } from '../store/accounts';
import { insertKey, listKeys, revokeKey, type StoredKey } from '../store/api-keys';
import { type Actor, recordChange } from '../store/audit-log';
import { keyDigest, keyHint, newKeyToken } from './key-token';

export interface KeyDeps {
  readonly pool: Pool;
  /** Re-reads this process's keys, so that its next request already sees the change. */
  readonly refreshKeys: () => Promise<void>;
}

const keyView = (k: StoredKey): KeyView => ({
  id: k.id,
  name: k.name,
  hint: k.hint,
  accounts: [...k.appIds],
  operations: [...k.operations],
  createdAt: k.createdAt.toISOString(),
  revokedAt: k.revokedAt?.toISOString() ?? null,
});

/**
 * Makes a key for `request`'s accounts and operations: 400 naming each account that does not exist,
 * nothing written. The answer holds the key itself, which nothing shows again (only its digest is kept).
 */
export async function createKey(deps: KeyDeps, request: CreateKeyRequest, by: Actor): Promise<CreatedKey> {
  const token = newKeyToken();
  const stored = await withTransaction(deps.pool, async (client) => {
    const existing = await existingAppIds(client, request.accounts);
    const missing = request.accounts.flatMap((appId, i) =>
      existing.has(appId) ? [] : [{ path: `accounts.${i}`, message: `no account ${appId} is configured` }],
    );
    if (missing.length > 0) throw new ValidationError('invalid key', missing);
    const key = await insertKey(client, {
      name: request.name,
      digest: keyDigest(token),
      hint: keyHint(token),
      appIds: request.accounts,
      operations: request.operations,
    });
    await recordChange(client, by, {
      action: 'key.created',
      target: { type: 'key', id: key.id },
      appId: null,
      details: { name: key.name, accounts: [...key.appIds], operations: [...key.operations] },
    });
    return key;
  });
  await deps.refreshKeys();
  return { ...keyView(stored), key: token };
}

export async function listAllKeys(deps: KeyDeps): Promise<KeyView[]> {
  return (await listKeys(deps.pool)).map(keyView);
}

/**
 * Revokes the key: refused from the next request on, in this process at once and in the others when the
 * notification reaches them. Revoking a revoked key changes nothing and answers it as it is; 404 for an
 * id no key has.
 */
export async function revokeApiKey(deps: KeyDeps, id: string, by: Actor): Promise<KeyView> {
  const key = await withTransaction(deps.pool, async (client) => {
    const result = await revokeKey(client, id);
    if (!result) throw new NotFoundError(`key ${id}`);
    if (result.revoked) {
      await recordChange(client, by, {
        action: 'key.revoked',
        target: { type: 'key', id },
        appId: null,
        details: { name: result.key.name },
      });
    }
    return result.key;
  });
  await deps.refreshKeys();
  return keyView(key);
}
