import type { Pool, PoolClient } from '../db/pool';

/** One use of a plaintext-mode push URL: its signature, which stands for its (timestamp, nonce), and the body. */
export interface UrlUse {
  readonly appId: string;
  /** The `signature` query parameter: SHA-1 of the token, timestamp and nonce (validated, 40 hex digits). */
  readonly signature: string;
  /** SHA-256 of the raw body, base64url. */
  readonly bodySha256: string;
}

/**
 * Claims a URL for a body, atomically across api processes: true when the URL is new or was first used
 * with this same body (WeChat retrying), false when it carried another body (a replay). A concurrent
 * claim of the same URL waits for this transaction, then sees its body.
 */
export async function claimUrlUse(db: PoolClient, use: UrlUse): Promise<boolean> {
  // DO UPDATE (a no-op) rather than DO NOTHING, so that the row comes back on a conflict too.
  const { rows } = await db.query<{ body_sha256: string }>(
    `INSERT INTO webhook_url_uses (app_id, signature, body_sha256) VALUES ($1, $2, $3)
     ON CONFLICT (app_id, signature) DO UPDATE SET seen_at = webhook_url_uses.seen_at
     RETURNING body_sha256`,
    [use.appId, use.signature, use.bodySha256],
  );
  return rows[0].body_sha256 === use.bodySha256;
}

/** Deletes the URL uses first seen more than `olderThanS` seconds ago; returns how many. */
export async function pruneUrlUses(pool: Pool, olderThanS: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM webhook_url_uses WHERE seen_at < now() - $1 * interval '1 second'`,
    [olderThanS],
  );
  return rowCount ?? 0;
}
