import type { PoolClient } from '../db/pool';

/**
 * The advisory lock that keeps the pruner to one process at a time. Per schema, so that deployments (and
 * test schemas) sharing one database do not wait for each other.
 */
const RETENTION_LOCK_KEY = `hashtext('wechat-drip-retention:' || current_schema())`;

/**
 * Takes the pruner's lock for the session of `client`, without waiting: false when another process holds
 * it. The caller releases it on the same connection (`releaseRetentionLock`); a process that dies releases
 * it with its connection.
 */
export async function tryRetentionLock(client: PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_lock(${RETENTION_LOCK_KEY}) AS locked`,
  );
  return rows[0].locked;
}

/** Releases the lock taken by `tryRetentionLock` on this connection. */
export async function releaseRetentionLock(client: PoolClient): Promise<void> {
  await client.query(`SELECT pg_advisory_unlock(${RETENTION_LOCK_KEY})`);
}
