import type { Pool, PoolClient } from '../db/pool';
import type { KeyOperation } from '../contract';

/** An API key as stored: its digest, never the key. */
export interface StoredKey {
  readonly id: string;
  readonly name: string;
  readonly digest: Buffer;
  readonly hint: string;
  readonly appIds: readonly string[];
  readonly operations: readonly KeyOperation[];
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

interface KeyRow {
  id: string;
  name: string;
  digest: Buffer;
  hint: string;
  app_ids: string[];
  operations: KeyOperation[];
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, digest, hint, app_ids, operations, created_at, revoked_at';

const storedKey = (r: KeyRow): StoredKey => ({
  id: r.id,
  name: r.name,
  digest: r.digest,
  hint: r.hint,
  appIds: r.app_ids,
  operations: r.operations,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/**
 * Params: the key's name, digest, hint, app ids and operations.
 * Returns: the stored key.
 */
export async function insertKey(
  client: PoolClient,
  key: Pick<StoredKey, 'name' | 'digest' | 'hint' | 'appIds' | 'operations'>,
): Promise<StoredKey> {
  const { rows } = await client.query<KeyRow>(
    `INSERT INTO api_keys (name, digest, hint, app_ids, operations)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [key.name, key.digest, key.hint, key.appIds, key.operations],
  );
  return storedKey(rows[0]);
}

/** Returns: every key, revoked ones included, newest first. */
export async function listKeys(db: Pool | PoolClient): Promise<StoredKey[]> {
  const { rows } = await db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at DESC, id`);
  return rows.map(storedKey);
}

/** Returns: the keys not revoked (what each api process keeps in memory). */
export async function listUsableKeys(db: Pool | PoolClient): Promise<StoredKey[]> {
  const { rows } = await db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL`);
  return rows.map(storedKey);
}

/**
 * Params: the key's id.
 * Returns: the key as it is after the call — revoked now, or when it was revoked before; null when no key
 * has that id. `revoked` says whether this call revoked it.
 */
export async function revokeKey(
  client: PoolClient,
  id: string,
): Promise<{ key: StoredKey; revoked: boolean } | null> {
  const updated = await client.query<KeyRow>(
    `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [id],
  );
  if (updated.rows.length > 0) return { key: storedKey(updated.rows[0]), revoked: true };
  const { rows } = await client.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return rows.length > 0 ? { key: storedKey(rows[0]), revoked: false } : null;
}
