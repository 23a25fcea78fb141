import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

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

/** Polls `url` until it answers 200 (a spawned process is up and ready), or throws after `timeoutMs`. */
export async function waitUntilReady(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`${url} not ready after ${timeoutMs} ms (last status ${status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends `signal` to a child process (unless it already exited) and waits for it to exit. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}
