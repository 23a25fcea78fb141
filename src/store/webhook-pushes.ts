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
  readonly id: number;
  readonly appId: string;
  readonly fields: Record<string, string> | null;
  readonly receivedAt: Date;
  /** How long ago it was recorded, by the database's clock, when it was taken. */
  readonly ageMs: number;
  readonly requestId: string | null;
}

/**
 * Stores pushes, each once, in one statement: returns each one's id, or null when one with its dedupe key
 * is stored already (or comes earlier in the list). Inserted in dedupe-key order, so that two batches
 * never wait for each other in a cycle.
 */
export async function insertPushes(
  db: Pool | PoolClient,
  pushes: readonly NewPush[],
): Promise<(number | null)[]> {
  const keyOf = (p: NewPush) => `${p.appId}\u0000${p.dedupeKey}`;
  const first = new Map<string, NewPush>();
  for (const p of pushes) if (!first.has(keyOf(p))) first.set(keyOf(p), p);
  const rows = [...first.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  const column = <T>(pick: (p: NewPush) => T) => rows.map(pick);
  const inserted = await db.query<{ id: number; app_id: string; dedupe_key: string }>(
    `INSERT INTO webhook_pushes (app_id, dedupe_key, openid, msg_type, event, fields, request_id)
     SELECT app_id, dedupe_key, openid, msg_type, event, fields::jsonb, request_id
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS p(app_id, dedupe_key, openid, msg_type, event, fields, request_id)
     ON CONFLICT (app_id, dedupe_key) DO NOTHING RETURNING id, app_id, dedupe_key`,
    [
      column((p) => p.appId),
      column((p) => p.dedupeKey),
      column((p) => p.openid),
      column((p) => p.msgType),
      column((p) => p.event),
      column((p) => JSON.stringify(p.fields)),
      column((p) => p.requestId),
    ],
  );
  const ids = new Map(inserted.rows.map((r) => [`${r.app_id}\u0000${r.dedupe_key}`, r.id]));
  return pushes.map((p) => {
    const id = first.get(keyOf(p)) === p ? ids.get(keyOf(p)) : undefined;
    return id ?? null;
  });
}

/**
 * Takes the unprocessed pushes among `ids` for the caller's transaction (row-locked), in id order; those
 * processed already or held by another process are left out.
 */
export async function takeUnprocessedPushes(
  client: PoolClient,
  ids: readonly number[],
): Promise<StoredPush[]> {
  const { rows } = await client.query<{
    id: number;
    app_id: string;
    fields: Record<string, string> | null;
    received_at: Date;
    age_ms: number;
    request_id: string | null;
  }>(
    `SELECT id, app_id, fields, received_at, request_id,
            (extract(epoch FROM clock_timestamp() - received_at) * 1000)::float8 AS age_ms
       FROM webhook_pushes
      WHERE id = ANY($1::bigint[]) AND processed_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED`,
    [ids],
  );
  return rows.map((r) => ({
    id: r.id,
    appId: r.app_id,
    fields: r.fields,
    receivedAt: r.received_at,
    ageMs: r.age_ms,
    requestId: r.request_id,
  }));
}

/** Marks pushes processed, each with what processing it did. */
export async function markPushesProcessed(
  client: PoolClient,
  outcomes: readonly { readonly id: number; readonly outcome: string | null }[],
): Promise<void> {
  await client.query(
    `UPDATE webhook_pushes w SET processed_at = now(), outcome = o.outcome
       FROM unnest($1::bigint[], $2::text[]) AS o(id, outcome) WHERE w.id = o.id`,
    [outcomes.map((o) => o.id), outcomes.map((o) => o.outcome)],
  );
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
