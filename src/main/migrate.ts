/** Composition root of `npm run migrate`: creates the database if needed and applies pending migrations. */
import { loadMigrateConfig } from '../config';
import { ensureDatabase, migrate } from '../db/migrate';
import { createPool } from '../db/pool';
import { createLogger } from '../logger';
import { errorText } from '../loggable-error';

async function main(): Promise<void> {
  const { databaseUrl, logLevel } = loadMigrateConfig();
  const logger = createLogger({ level: logLevel, name: 'wechat-drip-migrate' });
  await ensureDatabase(databaseUrl, logger);
  const pool = createPool({ connectionString: databaseUrl, max: 1, logger });
  try {
    const applied = await migrate(pool, logger);
    logger.info({ applied: applied.length }, applied.length ? 'migrations applied' : 'schema up to date');
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`migration failed: ${errorText(err)}\n`);
  process.exit(1);
});
