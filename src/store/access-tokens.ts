import type { Pool, PoolClient } from '../db/pool';

/**
 * An account's stored token, sealed (src/accounts/secret-box.ts: a database dump grants no API access),
 * its lives measured by Postgres so that process clocks never matter.
 */
export interface StoredToken {
  readonly sealed: string;
  /** Life left, ms (negative once expired). */
  readonly remainingMs: number;
  /** The life it was given, ms. */
  readonly lifeMs: number;
}

/** The account's stored token, or null when it has none. */
export async function readToken(db: Pool | PoolClient, appId: string): Promise<StoredToken | null> {
  const { rows } = await db.query<{ token: string; remaining_ms: number; life_ms: number }>(
    `SELECT token,
            (EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000)::float8 AS remaining_ms,
            (EXTRACT(EPOCH FROM (expires_at - refreshed_at)) * 1000)::float8 AS life_ms
       FROM access_tokens WHERE app_id = $1`,
    [appId],
  );
  const row = rows[0];
  return row ? { sealed: row.token, remainingMs: row.remaining_ms, lifeMs: row.life_ms } : null;
}

/** Makes the caller's transaction the account's only token refresher until it ends (across processes). */
export async function lockTokenRefresh(client: PoolClient, appId: string): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('wechat-drip-token:' || $1))`, [appId]);
}

/** Stores the account's new token (sealed), valid for `lifeMs` from now (the database's now). */
export async function saveToken(
  client: PoolClient,
  appId: string,
  sealed: string,
  lifeMs: number,
): Promise<void> {
  await client.query(
    `INSERT INTO access_tokens (app_id, token, expires_at, refreshed_at)
     VALUES ($1, $2, clock_timestamp() + $3 * INTERVAL '1 millisecond', clock_timestamp())
     ON CONFLICT (app_id) DO UPDATE
       SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at, refreshed_at = EXCLUDED.refreshed_at`,
    [appId, sealed, lifeMs],
  );
}

/** Marks the token sealed as `sealed` expired if it is still the account's current one (compare-and-expire). */
export async function expireStoredToken(pool: Pool, appId: string, sealed: string): Promise<void> {
  await pool.query(`UPDATE access_tokens SET expires_at = now() WHERE app_id = $1 AND token = $2`, [
    appId,
    sealed,
  ]);
}

/** Deletes the stored token if it is still `sealed` (one no configured key opens); returns whether it did. */
export async function discardToken(db: Pool | PoolClient, appId: string, sealed: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM access_tokens WHERE app_id = $1 AND token = $2`, [
    appId,
    sealed,
  ]);
  return (rowCount ?? 0) > 0;
}
