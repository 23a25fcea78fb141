import { randomBytes } from 'node:crypto';
import { listMigrations, migrate } from '../../src/db/migrate';
import { createPool, type Pool } from '../../src/db/pool';
import { ensureMessagePartitions, slotsAhead } from '../../src/store/message-partitions';
import { silentLogger } from './logger';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDb {
  readonly pool: Pool;
  readonly schema: string;
  /** Drops the schema and closes the pool. */
  readonly drop: () => Promise<void>;
}

const DAY_MS = 86_400_000;

/**
 * The publishing horizon of tests that call the store directly: every message they schedule within four
 * days is published at once (createTestDb keeps a partition ready for each of those days).
 */
export const TEST_HORIZON_MS = 4 * DAY_MS;

/**
 * A fresh, migrated schema of its own for one test file, on the real local Postgres (or on `databaseUrl`,
 * a private cluster of the fault suite), with the partitions of scheduled_messages ready from yesterday to
 * the end of TEST_HORIZON_MS (and two days more).
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
  await ensureMessagePartitions(pool, slotsAhead(Date.now(), TEST_HORIZON_MS, DAY_MS), DAY_MS);
  return {
    pool,
    schema,
    drop: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      await pool.end();
    },
  };
}

/** Empties the test's schema and applies the migrations before `version`: a database of that age. */
export async function resetSchemaTo(db: TestDb, version: number): Promise<void> {
  const { pool, schema } = db;
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(
    `CREATE TABLE schema_migrations (
       version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (const m of (await listMigrations()).filter((m) => m.version < version)) {
    await pool.query(m.sql);
    await pool.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
}
