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
 * Claims URLs for their bodies, atomically across api processes, in one statement: for each use, true when
 * its URL is new or was first used with this same body (WeChat retrying), false when it carried another
 * body (a replay). A URL listed twice is claimed by its first body. A concurrent claim of the same URL
 * waits for this transaction, then sees its body; URLs are claimed in one order, so two batches never
 * wait for each other in a cycle.
 */
export async function claimUrlUses(db: PoolClient, uses: readonly UrlUse[]): Promise<boolean[]> {
  const keyOf = (u: UrlUse) => `${u.appId}\u0000${u.signature}`;
  const first = new Map<string, UrlUse>();
  for (const u of uses) if (!first.has(keyOf(u))) first.set(keyOf(u), u);
  const distinct = [...first.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  // DO UPDATE (a no-op) rather than DO NOTHING, so that the row comes back on a conflict too.
  const { rows } = await db.query<{ app_id: string; signature: string; body_sha256: string }>(
    `INSERT INTO webhook_url_uses (app_id, signature, body_sha256)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT (app_id, signature) DO UPDATE SET seen_at = webhook_url_uses.seen_at
     RETURNING app_id, signature, body_sha256`,
    [distinct.map((u) => u.appId), distinct.map((u) => u.signature), distinct.map((u) => u.bodySha256)],
  );
  const claimed = new Map(rows.map((r) => [`${r.app_id}\u0000${r.signature}`, r.body_sha256]));
  return uses.map((u) => claimed.get(keyOf(u)) === u.bodySha256);
}

/** Deletes the URL uses first seen more than `olderThanS` seconds ago; returns how many. */
export async function pruneUrlUses(pool: Pool, olderThanS: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM webhook_url_uses WHERE seen_at < now() - $1 * interval '1 second'`,
    [olderThanS],
  );
  return rowCount ?? 0;
}
