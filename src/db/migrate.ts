import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger';
import { type Pool, withTransaction } from './pool';

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The numbered SQL files shipped with this build, in order. */
export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => FILE_PATTERN.test(f)).sort();
  return Promise.all(
    files.map(async (name) => ({
      version: Number(FILE_PATTERN.exec(name)![1]),
      name,
      sql: await readFile(path.join(dir, name), 'utf8'),
    })),
  );
}

/**
 * Applies the migrations not yet recorded in `schema_migrations` in one transaction, under a
 * transaction-level advisory lock per schema so that concurrent starters wait instead of racing.
 * Returns the names applied.
 */
export async function migrate(pool: Pool, logger: Logger): Promise<string[]> {
  const migrations = await listMigrations();
  const applied: string[] = [];
  await withTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('wechat-drip-migrate:' || current_schema()))`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
      logger.info({ migration: m.name }, 'migration applied');
      applied.push(m.name);
    }
  });
  return applied;
}

/** True when every shipped migration is recorded (used by /readyz). */
export async function isMigrated(pool: Pool): Promise<boolean> {
  const migrations = await listMigrations();
  const latest = migrations.at(-1)?.version ?? 0;
  const { rows } = await pool.query<{ v: number | null }>(`SELECT max(version) AS v FROM schema_migrations`);
  return (rows[0]?.v ?? 0) >= latest;
}

/**
 * Creates the database named in `connectionString` when it does not exist yet, connecting to the
 * server's `postgres` database to do so. A fresh machine then needs no manual `createdb`.
 */
export async function ensureDatabase(connectionString: string, logger: Logger): Promise<void> {
  const url = new URL(connectionString);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database) return;
  const probe = new pg.Client({ connectionString });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    logger.info({ database }, 'database created');
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // created concurrently: fine
  } finally {
    await admin.end();
  }
}
