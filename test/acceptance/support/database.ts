import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The server the tests use; only its `postgres` maintenance database is touched directly, for setup. */
const SERVER_URL = process.env.ACCEPTANCE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database of one test file's own: created empty, dropped (with its connections) afterwards. */
export interface TestDatabase {
  /** DATABASE_URL for the service. */
  readonly url: string;
  readonly drop: () => Promise<void>;
}

async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates `acc_<random>`; the service's own `migrate` program fills it, as `make run` does. */
export async function createDatabase(): Promise<TestDatabase> {
  const name = `acc_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
