import { fork, type ChildProcess } from 'node:child_process';

/**
 * The peers' worker processes: forked by the system in the orchestrator's process, given their
 * configuration as JSON in BENCH_PEER_WORKER, and talked to over IPC ('ready' up, 'stop' down).
 */

const CONFIG_VARIABLE = 'BENCH_PEER_WORKER';
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;
/** Workers asked to stop: their exit is expected, any other is reported. */
const stopRequested = new WeakSet<ChildProcess>();

function waitReady(child: ChildProcess, entry: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (message: unknown) => {
      if (message === 'ready') done();
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`${entry} exited (${signal ?? code}) before it was ready`));
    const timer = setTimeout(
      () => done(new Error(`${entry} was not ready within ${READY_TIMEOUT_MS / 1000} s`)),
      READY_TIMEOUT_MS,
    );
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function stopOne(child: ChildProcess): Promise<void> {
  stopRequested.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.connected) child.send('stop');
    else child.kill('SIGTERM');
  });
}

/** Asks every worker to stop (it finishes its jobs in flight), killing one that takes over 30 s. */
export async function stopWorkers(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(children.map(stopOne));
}

/**
 * Forks `count` processes of the compiled `entry` with `config`, and resolves once every one reported
 * ready; if one fails to start, the others are stopped and the error is thrown.
 */
export async function forkWorkers(entry: string, count: number, config: object): Promise<ChildProcess[]> {
  const children = Array.from({ length: count }, () =>
    fork(entry, [], {
      env: { ...process.env, [CONFIG_VARIABLE]: JSON.stringify(config) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  try {
    await Promise.all(children.map((c) => waitReady(c, entry)));
  } catch (err) {
    await stopWorkers(children);
    throw err;
  }
  for (const child of children)
    child.once('exit', (code, signal) => {
      if (!stopRequested.has(child)) process.stderr.write(`${entry} exited unasked (${signal ?? code})\n`);
    });
  return children;
}

/**
 * The worker side: reads the configuration, runs `start`, reports ready, and on 'stop', SIGTERM or the
 * parent going away runs the closer `start` resolved with and exits.
 */
export function runWorkerProcess<Config>(
  name: string,
  start: (config: Config) => Promise<() => Promise<void>>,
): void {
  const fail = (what: string, err: unknown) => {
    process.stderr.write(
      `${name}: ${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  };
  const raw = process.env[CONFIG_VARIABLE];
  if (!raw || !process.send)
    return fail('start', new Error(`run it through forkWorkers (${CONFIG_VARIABLE}, IPC)`));
  start(JSON.parse(raw) as Config).then(
    (close) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        close().then(
          () => process.exit(0),
          (err: unknown) => fail('stop', err),
        );
      };
      process.on('message', (message) => message === 'stop' && stop());
      process.on('disconnect', stop);
      process.on('SIGTERM', stop);
      process.send?.('ready');
    },
    (err: unknown) => fail('start', err),
  );
}
