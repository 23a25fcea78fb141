import { withTransaction, type Pool } from '../db/pool';
import { findAccount, listAccounts, updateAccount } from '../store/accounts';
import { resealStale } from './account';
import type { SecretBox } from './secret-box';

/**
 * Seals again, with the current key, every account secret an older key sealed (each account in its own
 * transaction, its row locked). Afterwards the older keys can leave ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS.
 * Returns how many accounts were re-sealed and how many were read.
 */
export async function rotateAccountKeys(
  pool: Pool,
  box: SecretBox,
): Promise<{ resealed: number; read: number }> {
  const accounts = await listAccounts(pool);
  let resealed = 0;
  for (const { appId } of accounts) {
    const changed = await withTransaction(pool, async (client) => {
      const stored = await findAccount(client, appId, { lock: true });
      if (!stored) return false;
      const changes = resealStale(box, stored);
      if (Object.keys(changes).length === 0) return false;
      await updateAccount(client, appId, changes);
      return true;
    });
    if (changed) resealed += 1;
  }
  return { resealed, read: accounts.length };
}
