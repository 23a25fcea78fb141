import type { PoolClient } from '../db/pool';
import { countCancellable } from '../store/count-cancellable';
import { appendCancellation, holdClaims } from '../store/ledger';

/**
 * Cancels every open message of the account with one ledger row (scope `account`, target its app id),
 * inside the caller's transaction, after the claims in flight for it finish: none is sent once this
 * commits. Returns how many open messages it stopped.
 */
export async function cancelAccountMessages(
  client: PoolClient,
  appId: string,
  reason: string,
  actor: string,
): Promise<number> {
  await holdClaims(client, appId);
  const count = await countCancellable(client, appId, 'app_id', appId);
  await appendCancellation(client, { appId, scope: 'account', target: appId, reason, actor });
  return count;
}
