import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';
import { privateInstanceDir, privateInstancesUnavailable, runAs } from './private-instances';

const PG_BIN = process.env.PG_BIN ?? `/usr/lib/postgresql/${process.env.PG_CLUSTER_VERSION ?? '15'}/bin`;
const PG_USER = 'postgres';
const env = { PATH: `${PG_BIN}:/usr/bin:/bin`, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };

/** A throw-away Postgres cluster of the installed version, for a test that stops the database. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  readonly url: string;
  /** A fast shutdown (`pg_ctl stop -m fast`): every connection is closed. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** An immediate stop, then its directory deleted. */
  close(): Promise<void>;
}

/** Why a private cluster cannot be started here, or null when it can. */
export function privatePostgresUnavailable(): string | null {
  if (!existsSync(path.join(PG_BIN, 'initdb'))) return `no initdb in ${PG_BIN} (set PG_BIN)`;
  return privateInstancesUnavailable();
}

/**
 * `initdb` in a directory of its own (see private-instances.ts), started with `pg_ctl` as user postgres
 * on a free port of 127.0.0.1, its socket in that directory, fsync off (its data is thrown away). The
 * machine's own cluster is never named to any command.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await privateInstanceDir('pg', PG_USER);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const pgCtl = (...args: string[]) =>
    runAs(PG_USER, path.join(PG_BIN, 'pg_ctl'), ['-D', data, ...args], env, dir);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const start = async () => {
    await pgCtl('start', '-w', '-t', '120', '-l', path.join(dir, 'log'), '-o', options);
  };
  const close = async () => {
    if (existsSync(path.join(data, 'postmaster.pid')))
      await pgCtl('stop', '-m', 'immediate', '-w').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await runAs(
      PG_USER,
      path.join(PG_BIN, 'initdb'),
      ['-D', data, '-A', 'trust', '-U', PG_USER, '-E', 'UTF8', '--no-sync'],
      env,
      dir,
    );
    await start();
  } catch (err) {
    const log = existsSync(path.join(dir, 'log')) ? readFileSync(path.join(dir, 'log'), 'utf8') : '';
    await close();
    throw new Error(`private Postgres did not start: ${(err as Error).message}\n${log.slice(-2000)}`, {
      cause: err,
    });
  }
  return {
    url: `postgres://${PG_USER}@127.0.0.1:${port}/postgres`,
    async stop() {
      await pgCtl('stop', '-m', 'fast', '-w');
    },
    start,
    close,
  };
}
