import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
export { freePort } from '../../helpers/free-port';

const ROOT = path.resolve(__dirname, '../../..');
/** Each child's stdout and stderr go here, one file per process, for reading after a failure. */
export const LOG_DIR = path.join(ROOT, 'test-artifacts/acceptance');

/** A program of the build, run as a user runs it. */
export type Program = 'all' | 'simulator' | 'migrate' | 'rotate-account-keys';

/** Every child still running, killed if the test process exits without cleaning up (a crash, a timeout). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Resolves once everything a child wrote is in its log file. */
const logWritten = new WeakMap<ChildProcess, Promise<void>>();

/** Starts `node dist/main/<program>.js` with exactly `env` (plus PATH), logging to LOG_DIR/<logName>.log. */
export function startProgram(program: Program, env: Record<string, string>, logName: string): ChildProcess {
  const entry = path.join(ROOT, 'dist/main', `${program}.js`);
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` first (make test does)`);
  mkdirSync(LOG_DIR, { recursive: true });
  const child = spawn(process.execPath, [entry], {
    // Only what a user would set: the process must not inherit the test runner's DATABASE_URL and such.
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(path.join(LOG_DIR, `${logName}.log`), { flags: 'a' });
  // Both into one file, which is ended once both are (piped with `end`, the first to end would end it
  // and lose what the other still had to say).
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const ended = (stream: NodeJS.ReadableStream) => new Promise((r) => stream.once('end', r));
  logWritten.set(
    child,
    Promise.all([ended(child.stdout), ended(child.stderr)]).then(() => new Promise<void>((r) => log.end(r))),
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Runs a program to its end; rejects with its exit code when it fails. */
export async function runProgram(
  program: Program,
  env: Record<string, string>,
  logName: string,
): Promise<void> {
  const child = startProgram(program, env, logName);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  // The exit can come before the last of its output is in the file: a caller reads the file next.
  await logWritten.get(child);
  if (code !== 0) throw new Error(`${program} exited with ${code} (see ${LOG_DIR}/${logName}.log)`);
}

/** True while the child has not exited. */
export const isRunning = (child: ChildProcess): boolean =>
  child.exitCode === null && child.signalCode === null;

/**
 * Sends `signal` and waits for the exit; after `graceMs` without one, SIGKILL. Resolves with how the
 * process ended.
 */
export async function stopProgram(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 10_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (!isRunning(child)) return { code: child.exitCode, signal: child.signalCode };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
