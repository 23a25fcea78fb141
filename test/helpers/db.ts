import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/db/migrate';
import { createPool, type Pool } from '../../src/db/pool';
import { silentLogger } from './logger';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDb {
  readonly pool: Pool;
  readonly schema: string;
  /** Drops the schema and closes the pool. */
  readonly drop: () => Promise<void>;
}

/**
 * A fresh, migrated schema of its own for one test file, on the real local Postgres (or on `databaseUrl`,
 * a private cluster of the fault suite).
 */
export async function createTestDb(opts: { poolSize?: number; databaseUrl?: string } = {}): Promise<TestDb> {
  const databaseUrl = opts.databaseUrl ?? TEST_DATABASE_URL;
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = createPool({ connectionString: databaseUrl, max: 1, logger: silentLogger });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const pool = createPool({
    connectionString: databaseUrl,
    max: opts.poolSize ?? 10,
    logger: silentLogger,
    searchPath: schema,
  });
  await migrate(pool, silentLogger);
  return {
    pool,
    schema,
    drop: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      await pool.end();
    },
  };
}
