import type { Pool, PoolClient } from '../db/pool';

/** A push as stored, before it is processed. */
export interface NewPush {
  readonly appId: string;
  /** The dedupe key, hashed (it contains the openid, which an unfollow must erase). */
  readonly dedupeKey: string;
  readonly openid: string;
  readonly msgType: string;
  readonly event: string | null;
  readonly fields: Readonly<Record<string, string>>;
  readonly requestId: string;
}

/** A recorded push taken for processing. `fields` null: erased by an unfollow. */
export interface StoredPush {
  readonly appId: string;
  readonly fields: Record<string, string> | null;
  readonly receivedAt: Date;
  readonly requestId: string | null;
}

/** Stores a push once: returns its id, or null when one with its dedupe key is stored already. */
export async function insertPush(db: Pool | PoolClient, push: NewPush): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO webhook_pushes (app_id, dedupe_key, openid, msg_type, event, fields, request_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (app_id, dedupe_key) DO NOTHING RETURNING id`,
    [
      push.appId,
      push.dedupeKey,
      push.openid,
      push.msgType,
      push.event,
      JSON.stringify(push.fields),
      push.requestId,
    ],
  );
  return rows[0]?.id ?? null;
}

/**
 * Takes an unprocessed push for the caller's transaction (row-locked); null when it is processed already
 * or another process holds it.
 */
export async function takeUnprocessedPush(client: PoolClient, id: number): Promise<StoredPush | null> {
  const { rows } = await client.query<{
    app_id: string;
    fields: Record<string, string> | null;
    received_at: Date;
    request_id: string | null;
  }>(
    `SELECT app_id, fields, received_at, request_id FROM webhook_pushes WHERE id = $1 AND processed_at IS NULL
       FOR UPDATE SKIP LOCKED`,
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  return { appId: row.app_id, fields: row.fields, receivedAt: row.received_at, requestId: row.request_id };
}

/** Marks a push processed, with what processing it did. */
export async function markPushProcessed(
  client: PoolClient,
  id: number,
  outcome: string | null,
): Promise<void> {
  await client.query(`UPDATE webhook_pushes SET processed_at = now(), outcome = $2 WHERE id = $1`, [
    id,
    outcome,
  ]);
}

/** Ids of up to `limit` pushes recorded more than `olderThanMs` ago and not processed, oldest first. */
export async function listStalePushes(pool: Pool, olderThanMs: number, limit: number): Promise<number[]> {
  const { rows } = await pool.query<{ id: number }>(
    `SELECT id FROM webhook_pushes WHERE processed_at IS NULL AND received_at < now() - $1 * interval '1 millisecond'
     ORDER BY received_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((r) => r.id);
}
