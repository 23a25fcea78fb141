import { execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The private Postgres clusters and RabbitMQ nodes a test process starts (for the tests that stop,
 * kill or partition a server: never the machine's own) live under PRIVATE_ROOT/<its pid>/, and a node's
 * Erlang name is drip-<its pid>-…@localhost. Whatever a test does not close itself, the reaper
 * (reap-private.sh) kills and removes once that process is gone, crashed or not; and the first start of
 * a run removes what earlier, dead test processes left.
 */
export const PRIVATE_ROOT = path.join(tmpdir(), 'wechat-drip-private');
/** The test process that owns the instances it starts. */
export const OWNER_PID = process.pid;
const REAPER = path.join(__dirname, 'reap-private.sh');

let reaperStarted = false;

/** Removes what dead test processes left, and starts this process's reaper (once per process). */
async function ensureReaper(): Promise<void> {
  if (reaperStarted) return;
  reaperStarted = true;
  await run('bash', [REAPER, PRIVATE_ROOT, 'stale']);
  // Its own session: not in the test process's group, so it outlives a Ctrl-C or a killed jest.
  spawn('bash', [REAPER, PRIVATE_ROOT, 'wait', String(OWNER_PID)], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}

/** A new, empty directory for one private instance (`kind` names it), owned by the system user `user`. */
export async function privateInstanceDir(kind: string, user: string): Promise<string> {
  await ensureReaper();
  const dir = path.join(PRIVATE_ROOT, String(OWNER_PID), `${kind}-${randomBytes(3).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  await run('chown', [`${user}:${user}`, dir]);
  return dir;
}

/** Runs `command` as the system user `user` with exactly `env`, in `cwd`. */
export async function runAs(
  user: string,
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ stdout: string; stderr: string }> {
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return run('runuser', ['-u', user, '--', 'env', '-i', ...envArgs, command, ...args], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Why private instances cannot be started here (they run as system users, which needs root), or null. */
export function privateInstancesUnavailable(): string | null {
  return process.getuid?.() === 0
    ? null
    : 'private servers are started as their system users, which needs root';
}
