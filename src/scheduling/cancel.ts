import { type Pool, type PoolClient, withTransaction } from '../db/pool';
import type { CancelResult } from '../contract';
import {
  accountsOfMessages,
  type CancelById,
  cancelOpenMessagesById,
  findStatuses,
} from '../store/cancel-by-ids';
import { countCancellable } from '../store/count-cancellable';
import { appendCancellation, type Cancellation, holdClaims, holdClaimsOfMessages } from '../store/ledger';
import { MESSAGE_STATUS, type MessageStatus } from '../store/message-status';

/** What a cancellation by id did with one id: `cancelled` by this call, and its status now. */
export interface CancelledById {
  readonly cancelled: boolean;
  readonly status: MessageStatus;
}

/**
 * Cancels each message of `items` (distinct ids, of any accounts) that is open; the one way to cancel by
 * id, for `DELETE /v1/messages/:id`, `POST /v1/cancellations {ids}` and a reschedule. Its answer is true
 * as `cancelByTarget`'s is: claims in flight for those accounts finish first (what they took is being sent
 * and stays so), and none starts until the caller's transaction has committed, so an id answered
 * `cancelled` is never sent. Returns, for each id that exists, whether this call cancelled it and its
 * status as the ledger sees it. Two statements whatever the number of ids, then one read of the others.
 */
export async function cancelByIdIn(
  client: PoolClient,
  items: readonly CancelById[],
): Promise<Map<string, CancelledById>> {
  const ids = items.map((i) => i.id);
  await holdClaimsOfMessages(client, ids);
  const cancelled = new Set(await cancelOpenMessagesById(client, items));
  const others = await findStatuses(
    client,
    ids.filter((id) => !cancelled.has(id)),
  );
  const answers = new Map<string, CancelledById>();
  for (const id of cancelled) answers.set(id, { cancelled: true, status: MESSAGE_STATUS.cancelled });
  for (const [id, status] of others) answers.set(id, { cancelled: false, status });
  return answers;
}

/** `cancelByIdIn` in a transaction of its own. */
export function cancelById(pool: Pool, items: readonly CancelById[]): Promise<Map<string, CancelledById>> {
  return withTransaction(pool, (client) => cancelByIdIn(client, items));
}

/**
 * `POST /v1/cancellations {ids}`: `cancelById` with one reason for all, one result per id, in order. A
 * message already `cancelled` answers `already_cancelled`; one being sent or finished `not_cancellable`.
 * With `mayUseAccount` (an API key's accounts), a message of another account is left alone and answered
 * `not_found`, as one that does not exist.
 */
export async function cancelMessages(
  pool: Pool,
  input: {
    ids: readonly string[];
    reason: string;
    actor: string;
    mayUseAccount?: (appId: string) => boolean;
  },
): Promise<CancelResult[]> {
  const { reason, actor, mayUseAccount } = input;
  let ids = input.ids;
  if (mayUseAccount) {
    const owners = await accountsOfMessages(pool, ids);
    ids = ids.filter((id) => {
      const appId = owners.get(id);
      return appId !== undefined && mayUseAccount(appId);
    });
  }
  const answers =
    ids.length === 0
      ? new Map<string, CancelledById>()
      : await cancelById(
          pool,
          ids.map((id) => ({ id, reason, actor })),
        );
  return input.ids.map((id): CancelResult => {
    const answer = answers.get(id);
    if (answer === undefined) return { id, outcome: 'not_found' };
    const { status } = answer;
    if (answer.cancelled) return { id, outcome: 'cancelled', status };
    if (status === MESSAGE_STATUS.cancelled) return { id, outcome: 'already_cancelled', status };
    return { id, outcome: 'not_cancellable', status };
  });
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
