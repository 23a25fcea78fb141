import type { PoolClient } from '../db/pool';
import { isOpenSql, MESSAGE_STATUS } from './message-status';
import { type Message, MESSAGE_COLUMNS, type MessageRow, toMessage } from './message-store';

/** One message to cancel by id, with who asked and why. */
export interface CancelById {
  readonly id: string;
  readonly reason: string;
  readonly actor: string;
}

/**
 * Cancels, in one statement, each message of `items` that is open (→ `cancelled`, guarded on the status, so a row a claim took meanwhile is left alone), with the item's reason, and appends one ledger
 * row (scope `message`, the item's actor) for each. Returns the rows it cancelled: each will never be sent.
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
): Promise<Message[]> {
  const { rows } = await client.query<MessageRow>(
    `WITH cancelled AS (
       UPDATE scheduled_messages m
       SET status = '${MESSAGE_STATUS.cancelled}', status_reason = i.reason, updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS i(id, reason, actor)
       WHERE m.id = i.id AND ${isOpenSql('m.status')}
       RETURNING ${MESSAGE_COLUMNS.map((c) => `m.${c}`).join(', ')}, i.actor
     ), ledger AS (
       INSERT INTO cancellations (app_id, scope, target, reason, actor)
       SELECT app_id, 'message', id::text, status_reason, actor FROM cancelled
     )
     SELECT ${MESSAGE_COLUMNS.join(', ')} FROM cancelled`,
    [items.map((i) => i.id), items.map((i) => i.reason), items.map((i) => i.actor)],
  );
  return rows.map(toMessage);
}
