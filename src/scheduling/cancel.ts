import { type Pool, type PoolClient, withTransaction } from '../db/pool';
import type { CancelResult } from '../contract';
import { cancelOpenMessagesById, findStatuses } from '../store/cancel-by-ids';
import { countCancellable } from '../store/count-cancellable';
import { appendCancellation, type Cancellation, holdClaims, holdClaimsOfMessages } from '../store/ledger';
import { MESSAGE_STATUS } from '../store/message-status';

/**
 * Cancels each message of `ids` (distinct, of any accounts) that is open: one result per id, in order. The
 * answer is true as `cancelByTarget`'s is: claims in flight for those accounts finish first (what they took
 * is being sent and answers `not_cancellable`), and none starts until the cancellation has committed, so
 * an id answered `cancelled` is never sent. A message already `cancelled` answers `already_cancelled`.
 * Two statements in a transaction whatever the number of ids, then one read of the others' statuses.
 */
export async function cancelMessages(
  pool: Pool,
  input: { ids: readonly string[]; reason: string; actor: string },
): Promise<CancelResult[]> {
  const cancelled = await cancelOpenById(pool, input);
  const statuses = await findStatuses(
    pool,
    input.ids.filter((id) => !cancelled.has(id)),
  );
  return input.ids.map((id): CancelResult => {
    if (cancelled.has(id)) return { id, outcome: 'cancelled', status: MESSAGE_STATUS.cancelled };
    const status = statuses.get(id);
    if (status === undefined) return { id, outcome: 'not_found' };
    if (status === MESSAGE_STATUS.cancelled) return { id, outcome: 'already_cancelled', status };
    return { id, outcome: 'not_cancellable', status };
  });
}

/**
 * The transaction of `cancelMessages`: the claim locks of the ids' accounts, then one statement that
 * cancels the open ones and appends their ledger rows. Returns the ids it cancelled.
 */
export async function cancelOpenById(
  pool: Pool,
  input: { ids: readonly string[]; reason: string; actor: string },
): Promise<Set<string>> {
  const cancelled = await withTransaction(pool, async (client) => {
    await holdClaimsOfMessages(client, input.ids);
    return cancelOpenMessagesById(client, input);
  });
  return new Set(cancelled);
}

export type CancelTarget = { cancelKey: string } | { openid: string };

/**
 * Cancels, by one ledger row, every message of the account with this cancel key or for this follower that
 * exists now (messages scheduled afterwards are not affected). Rows are not touched: the worker finds the
 * ledger row when each falls due. Returns the row and how many open messages it covers — a true count:
 * claims in flight for the account finish first (what they took is being sent, not cancelled), and no new
 * claim starts until the ledger row is committed.
 */
export async function cancelByTarget(
  pool: Pool,
  input: { appId: string; target: CancelTarget; reason: string; actor: string },
): Promise<{ cancellation: Cancellation; matched: number }> {
  return withTransaction(pool, (client) => cancelTargetIn(client, input));
}

/** `cancelByTarget` inside the caller's transaction (a reschedule by key adds its replacement after it). */
export async function cancelTargetIn(
  client: PoolClient,
  input: { appId: string; target: CancelTarget; reason: string; actor: string },
): Promise<{ cancellation: Cancellation; matched: number }> {
  const [scope, column, target] =
    'cancelKey' in input.target
      ? (['cancel_key', 'cancel_key', input.target.cancelKey] as const)
      : (['follower', 'openid', input.target.openid] as const);
  await holdClaims(client, input.appId);
  const matched = await countCancellable(client, input.appId, column, target);
  const cancellation = await appendCancellation(client, {
    appId: input.appId,
    scope,
    target,
    reason: input.reason,
    actor: input.actor,
  });
  return { cancellation, matched };
}
