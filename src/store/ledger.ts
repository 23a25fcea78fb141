import type { PoolClient, Pool } from '../db/pool';
import { byIdStatement, inPartitionsOf, partitionSlotsOf } from './message-partitions';
import { isOpenSql, MESSAGE_STATUS } from './message-status';

/**
 * What a cancellation row targets. `sequence` and `enrollment` arrive with sequences; `account` (target:
 * the app id) covers every message of an account that was deleted.
 */
export const CANCEL_SCOPES = [
  'message',
  'cancel_key',
  'follower',
  'sequence',
  'enrollment',
  'account',
] as const;
export type CancelScope = (typeof CANCEL_SCOPES)[number];

/** The ledger's `actor` of what is cancelled through the API (who made it is in the audit log). */
export const API_ACTOR = 'api';

export interface CancellationInput {
  readonly appId: string;
  readonly scope: CancelScope;
  readonly target: string;
  readonly reason: string;
  readonly actor: string;
}

export interface Cancellation extends CancellationInput {
  readonly id: number;
  readonly createdAt: Date;
}

/** The message column each scope's ledger rows target. */
const TARGET_OF: Record<CancelScope, (m: string) => string> = {
  message: (m) => `${m}.id::text`,
  cancel_key: (m) => `${m}.cancel_key`,
  follower: (m) => `${m}.openid`,
  sequence: (m) => `${m}.sequence_id::text`,
  enrollment: (m) => `${m}.enrollment_id::text`,
  account: (m) => `${m}.app_id`,
};

/**
 * The SQL condition "a cancellation in the ledger covers message row `m`": same account, recorded after the
 * message was created (seq order, so a reschedule in the same transaction is not caught by its own
 * cancellation), and aimed at the message, its cancel key, its follower, its sequence or its enrollment.
 * One EXISTS per scope, so that each is a probe of the index cancellations_target with all four columns
 * bound, whatever the planner's statistics say: the ledger grows (retention removes only old rows that
 * cover nothing), and the worker's claim runs this for every due message. (One EXISTS with the scopes OR-ed inside was planned, on ledgers of up to a few
 * thousand rows without fresh statistics, as a read of every row of the account: 39 ms to count 34
 * messages under a cancel key.)
 */
export const LEDGER_COVERS = (m: string) =>
  `(${CANCEL_SCOPES.map(
    (scope) => `EXISTS (SELECT 1 FROM cancellations c
    WHERE c.app_id = ${m}.app_id AND c.scope = '${scope}' AND c.target = ${TARGET_OF[scope](m)} AND c.seq > ${m}.seq)`,
  ).join(' OR ')})`;

/**
 * The SQL expression "the status of message row `m` as the ledger sees it": an open message covered by a
 * cancellation that the worker has not reached yet already reads `cancelled`.
 */
export const ledgerStatusSql = (m: string): string =>
  `CASE WHEN ${isOpenSql(`${m}.status`)} AND ${LEDGER_COVERS(m)} THEN '${MESSAGE_STATUS.cancelled}' ELSE ${m}.status END`;

/**
 * The advisory lock key a claim holds (shared) on each account it claims for, and a counted cancellation
 * takes (exclusive). SQL expression over the account id expression `appId`.
 */
export const CLAIM_LOCK_KEY = (appId: string) => `hashtext('wechat-drip-claim:' || ${appId})`;

/**
 * The accounts owning the messages `$1::uuid[]` (in a byIdStatement), in the one order every taker of several claim locks uses
 * (the claim's shared ones, a cancellation by ids' exclusive ones): two transactions that lock in the same
 * order cannot each hold a lock the other waits for.
 */
export const ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER = `(SELECT DISTINCT app_id FROM scheduled_messages m
  WHERE m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')} ORDER BY app_id)`;

/**
 * Waits until every claim in flight for the account has committed, and keeps new ones waiting until the
 * caller's transaction ends. A cancellation that answers how many messages it stops takes this before it
 * counts: a claim whose snapshot predates the ledger row could otherwise still send a message the answer
 * counted as cancelled, and every claim that starts after the commit sees the ledger row.
 */
export async function holdClaims(client: PoolClient, appId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY('$1::text')})`, [appId]);
}

const holdClaimsOfMessagesStatement = byIdStatement(
  'hold_claims_of_messages',
  `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY('s.app_id')}) FROM ${ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER} s`,
);

/**
 * `holdClaims` for every account that owns one of the messages `ids` (they may span accounts), taken in
 * the claim's own order (ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER), so that neither a claim nor another such
 * cancellation can hold one of these locks while waiting for another of them. Besides making its answer
 * true, it keeps the claim's row locks and the cancellation's from interleaving.
 */
export async function holdClaimsOfMessages(client: PoolClient, ids: readonly string[]): Promise<void> {
  await client.query(holdClaimsOfMessagesStatement([ids], partitionSlotsOf(ids, { awaitingPump: true })));
}

/**
 * `holdClaims` for each of the accounts `appIds`, taken in the claim's own order (by app id, in SQL), so
 * that a claim holding one of them never waits for another that this transaction holds.
 */
export async function holdClaimsOfAccounts(client: PoolClient, appIds: readonly string[]): Promise<void> {
  await client.query(
    `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_KEY('s.app_id')})
     FROM (SELECT DISTINCT app_id FROM unnest($1::text[]) AS a(app_id) ORDER BY app_id) s`,
    [appIds],
  );
}

/**
 * Appends one ledger row. Nothing updates a ledger row; the retention pruner deletes one only once it no
 * longer covers anything that may be sent (compact-ledger.ts).
 */
export async function appendCancellation(
  db: Pool | PoolClient,
  input: CancellationInput,
): Promise<Cancellation> {
  const { rows } = await db.query<{ id: number; created_at: Date }>(
    `INSERT INTO cancellations (app_id, scope, target, reason, actor)
     VALUES ($1, $2, $3, $4, $5) RETURNING id, created_at`,
    [input.appId, input.scope, input.target, input.reason, input.actor],
  );
  return { ...input, id: rows[0].id, createdAt: rows[0].created_at };
}
