import type { QueryConfig } from 'pg';
import type { Pool, PoolClient } from '../db/pool';
import { ledgerStatusSql } from './ledger';
import { isOpenSql, MESSAGE_STATUS, type MessageStatus } from './message-status';
import { byIdStatement, inPartitionsOf, partitionSlotsOf } from './message-partitions';

/** One message to cancel by id, with who asked and why. */
export interface CancelById {
  readonly id: string;
  readonly reason: string;
  readonly actor: string;
}

const cancelByIdStatement = byIdStatement(
  'cancel_by_ids',
  `WITH cancelled AS (
       UPDATE scheduled_messages m
       SET status = '${MESSAGE_STATUS.cancelled}', status_reason = i.reason, updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS i(id, reason, actor)
       WHERE m.id = i.id AND m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')} AND ${isOpenSql('m.status')}
       RETURNING m.id, m.app_id, m.status_reason, i.actor
     ), ledger AS (
       INSERT INTO cancellations (app_id, scope, target, reason, actor)
       SELECT app_id, 'message', id::text, status_reason, actor FROM cancelled
     )
     SELECT id FROM cancelled`,
);

/**
 * Cancels, in one statement, each message of `items` that is open (`queued` → `cancelled`, guarded on the
 * status, so a row a claim took meanwhile is left alone), with the item's reason, and appends one ledger
 * row (scope `message`, the item's actor) for each. Returns the ids it cancelled: each will never be sent.
 * An open row that a cancellation by key or follower covers already is cancelled too: the ledger is not
 * consulted row by row here, which would cost five index probes per id. Ids are distinct. Run inside the
 * caller's transaction, after `holdClaimsOfMessages` (the one lock protocol of a cancellation by id: it
 * waits for claims in flight on the ids' accounts, so the answer is true, and orders its locks as they do).
 *
 * Parameters: `$1 uuid[]` the ids, `$2 text[]` their reasons, `$3 text[]` their actors.
 */
export async function cancelOpenMessagesById(
  client: PoolClient,
  items: readonly CancelById[],
): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(cancelOpenMessagesStatement(items));
  return rows.map((r) => r.id);
}

/**
 * The statement of `cancelOpenMessagesById`. `m.id = ANY ($1)` beside the join on the ids makes each id
 * an index probe: without it, a plan could join the ids to every row of their range of partitions — from
 * their day to the later partition, a backlog of a million rows awaiting the pump.
 */
export function cancelOpenMessagesStatement(items: readonly CancelById[]): QueryConfig {
  const ids = items.map((i) => i.id);
  return cancelByIdStatement(
    [ids, items.map((i) => i.reason), items.map((i) => i.actor)],
    partitionSlotsOf(ids, { awaitingPump: true }),
  );
}

const findStatusesStatement = byIdStatement(
  'find_statuses',
  `SELECT m.id, ${ledgerStatusSql('m')} AS status FROM scheduled_messages m
   WHERE m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')}`,
);

/** The status, as the ledger sees it, of each of `ids` that exists (one statement, any number of ids). */
export async function findStatuses(
  db: Pool | PoolClient,
  ids: readonly string[],
): Promise<Map<string, MessageStatus>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; status: MessageStatus }>(
    findStatusesStatement([ids], partitionSlotsOf(ids, { awaitingPump: true })),
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}

const accountsOfStatement = byIdStatement(
  'accounts_of_messages',
  `SELECT m.id, m.app_id FROM scheduled_messages m WHERE m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')}`,
);

/** The account of each of `ids` that exists (one statement, any number of ids). */
export async function accountsOfMessages(
  db: Pool | PoolClient,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; app_id: string }>(
    accountsOfStatement([ids], partitionSlotsOf(ids, { awaitingPump: true })),
  );
  return new Map(rows.map((r) => [r.id, r.app_id]));
}
