import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PG_VERSION = process.env.PG_CLUSTER_VERSION ?? '15';

/** Stops the local PostgreSQL cluster for `downMs`, then starts it again (tests that stop it restart it). */
export async function restartPostgres(downMs: number): Promise<void> {
  const ctl = (action: string, ...extra: string[]) =>
    run('pg_ctlcluster', ['--skip-systemctl-redirect', PG_VERSION, 'main', action, ...extra]);
  await ctl('stop', '-m', 'fast');
  try {
    await new Promise((r) => setTimeout(r, downMs));
  } finally {
    await ctl('start');
  }
}

const ROOT = path.resolve(__dirname, '../..');

/** Starts a compiled composition root (`dist/main/<name>.js`) as a child process with `env`. */
export function spawnRole(name: 'worker' | 'api' | 'all', env: Record<string, string>): ChildProcess {
  const entry = path.join(ROOT, 'dist/main', `${name}.js`);
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` (make test does) first`);
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env },
    stdio: process.env.TEST_LOG ? 'inherit' : 'ignore',
  });
  return child;
}

/** A connection string that confines a child process to one schema. */
export function withSearchPath(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Runs a compiled operator command (`dist/main/<name>.js`) on a harness's schema; its exit code and stdout. */
export async function runCli(
  name: string,
  args: string[],
  env: Record<string, string>,
  schema: string,
): Promise<{ code: number | null; out: string }> {
  const entry = path.join(ROOT, 'dist/main', `${name}.js`);
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` (make test does) first`);
  const child = spawn(process.execPath, [entry, ...args], {
    env: { ...process.env, ...env, DATABASE_URL: withSearchPath(env.DATABASE_URL, schema) },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, out };
}
