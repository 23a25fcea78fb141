import pg from 'pg';
import type { Logger } from '../logger';
import { loggableError } from '../loggable-error';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * The type parsers of one pool: pg's defaults, except bigint (int8), which pg returns as a string. Our
 * bigints (seq, ids, counts) stay far below 2^53, so numbers are safe and simpler. Given per pool rather
 * than through `pg.types.setTypeParser`, which would change every pg user in the process.
 */
function serviceTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  return types;
}

/**
 * The process's Postgres pool. `searchPath` confines every connection to one schema (tests use one
 * schema per file). bigint columns come back as numbers. Errors on idle clients (a server restart) are
 * logged, never thrown.
 */
export function createPool(opts: {
  connectionString: string;
  max: number;
  logger: Logger;
  searchPath?: string;
  applicationName?: string;
}): Pool {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max,
    application_name: opts.applicationName ?? 'wechat-drip',
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    options: opts.searchPath ? `-c search_path=${opts.searchPath}` : undefined,
    types: serviceTypes(),
  });
  pool.on('error', (err) => opts.logger.warn({ err: loggableError(err) }, 'idle postgres client failed'));
  return pool;
}

/**
 * Runs `fn` in a transaction on one client; rolls back on any error. The pool listens for errors only on
 * idle clients, so while this one is checked out its `error` event (the server restarting mid-transaction)
 * is listened for here — unheard, it would crash the process; the query in flight rejects with the same
 * error — and a client that failed so, or could not roll back, is destroyed rather than reused.
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken ??= rollbackErr));
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}
