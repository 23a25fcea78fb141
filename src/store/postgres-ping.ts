import type { Pool } from '../db/pool';

/** Runs a trivial query: resolves once Postgres answered, rejects when it cannot. */
export async function pingPostgres(pool: Pool): Promise<void> {
  await pool.query('SELECT 1');
}
