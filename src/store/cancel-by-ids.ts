import type { Pool, PoolClient } from '../db/pool';
import { ledgerStatusSql } from './ledger';
import { isOpenSql, MESSAGE_STATUS, type MessageStatus } from './message-status';
import { type Message, MESSAGE_COLUMNS, type MessageRow, toMessage } from './message-store';

/**
 * Cancels, in one statement, every message of `ids` that is open (`queued` → `cancelled`, guarded
 * on the latest row version, so a row a claim took meanwhile is left alone), and appends one ledger row
 * (scope `message`) for each. Returns the ids it cancelled: each will never be sent. An open row that a
 * cancellation by key or follower covers already is cancelled too, as `DELETE /v1/messages/:id` does: the
 * ledger is not consulted row by row here, which would cost five index probes per id. Run inside the
 * caller's transaction, after `holdClaimsOfMessages`.
 *
 * Parameters: `$1 uuid[]` the ids, `$2 text` the reason, `$3 text` the actor.
 */
export async function cancelOpenMessagesById(
  client: PoolClient,
  input: { ids: readonly string[]; reason: string; actor: string },
): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `WITH cancelled AS (
       UPDATE scheduled_messages m
       SET status = '${MESSAGE_STATUS.cancelled}', status_reason = $2, updated_at = now()
       WHERE m.id = ANY($1::uuid[]) AND ${isOpenSql('m.status')}
       RETURNING m.id, m.app_id
     ), ledger AS (
       INSERT INTO cancellations (app_id, scope, target, reason, actor)
       SELECT app_id, 'message', id::text, $2, $3 FROM cancelled
     )
     SELECT id FROM cancelled`,
    [input.ids, input.reason, input.actor],
  );
  return rows.map((r) => r.id);
}

/** The status, as the ledger sees it, of each of `ids` that exists (one statement, any number of ids). */
export async function findStatuses(
  db: Pool | PoolClient,
  ids: readonly string[],
): Promise<Map<string, MessageStatus>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; status: MessageStatus }>(
    `SELECT m.id, ${ledgerStatusSql('m')} AS status FROM scheduled_messages m WHERE m.id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}

/**
 * Cancels each open message of `items` whose row no other transaction holds right now, with the item's
 * reason and actor, and appends their ledger rows: one statement that never waits for a row lock (SKIP
 * LOCKED), so it cannot deadlock with a claim however their rows interleave, and needs no claim lock.
 * Returns the rows it cancelled (each will never be sent: a claim that read one as open finds it
 * cancelled when it comes to update it). An open message whose row was held is not among them: the
 * caller asks again for it alone (`cancelOpenMessage` waits for that one row). Ids are distinct.
 *
 * Parameters: `$1 uuid[]` the ids, `$2 text[]` their reasons, `$3 text[]` their actors.
 */
export async function cancelUnheldOpenMessages(
  db: Pool | PoolClient,
  items: readonly { id: string; reason: string; actor: string }[],
): Promise<Message[]> {
  const { rows } = await db.query<MessageRow>(
    `WITH target AS (
       SELECT m.id, i.reason, i.actor
       FROM scheduled_messages m JOIN unnest($1::uuid[], $2::text[], $3::text[]) AS i(id, reason, actor) ON i.id = m.id
       WHERE ${isOpenSql('m.status')} ORDER BY m.id FOR UPDATE OF m SKIP LOCKED
     ), cancelled AS (
       UPDATE scheduled_messages m
       SET status = '${MESSAGE_STATUS.cancelled}', status_reason = t.reason, updated_at = now()
       FROM target t WHERE m.id = t.id AND ${isOpenSql('m.status')}
       RETURNING ${MESSAGE_COLUMNS.map((c) => `m.${c}`).join(', ')}, t.actor
     ), ledger AS (
       INSERT INTO cancellations (app_id, scope, target, reason, actor)
       SELECT app_id, 'message', id::text, status_reason, actor FROM cancelled
     )
     SELECT ${MESSAGE_COLUMNS.join(', ')} FROM cancelled`,
    [items.map((i) => i.id), items.map((i) => i.reason), items.map((i) => i.actor)],
  );
  return rows.map(toMessage);
}
