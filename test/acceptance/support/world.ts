import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createApiClient, type ApiClient } from './api-client';
import { ACCEPTANCE_TEMPLATE } from './builders';
import { deleteBrokerObjects, RABBITMQ_URL, randomBrokerPrefix } from './broker';
import { createDatabase } from './database';
import { call } from './http';
import { freePort, isRunning, LOG_DIR, runProgram, startProgram, stopProgram } from './processes';
import { createSimulatorClient, type SimulatorClient } from './simulator-client';
import type { Account } from './types';
import { waitFor } from './wait-for';

export const APP_ID = 'wxacceptance0001';
export const ADMIN_TOKEN = 'acceptance-admin-token-0123456789';

/** The test account: pushes signed and AES-encrypted (safe mode) like a real 服务号's. */
export const anAccount = (overrides: Partial<Account> = {}): Account => ({
  appId: APP_ID,
  secret: 'acceptance-secret',
  token: 'acceptancetoken',
  encodingAESKey: 'AcceptanceEncodingAESKey0123456789abcdefghi',
  pushMode: 'safe',
  windowPolicy: 'none',
  ...overrides,
});

/** How a world is set up. */
export interface WorldOptions {
  /** Names the log files (test-artifacts/acceptance/<name>-*.log). */
  readonly name: string;
  /** WECHAT_ACCOUNTS, for the service and the simulator alike. Default: one `anAccount()`. */
  readonly accounts?: readonly Account[];
  /** The service's environment instead of the defaults (ports, database, broker and simulator are still set). */
  readonly baseEnv?: Record<string, string>;
  /** Added to the service's environment. */
  readonly env?: Record<string, string>;
  /** SIM_ENFORCE_WINDOW. Default true. */
  readonly enforceWindow?: boolean;
  /** Run the api and the worker as two processes (ROLE=api, ROLE=worker) rather than one (ROLE=all). */
  readonly split?: boolean;
  /** How many worker processes a split world runs. Default 1. */
  readonly workers?: number;
  /** Added to the simulator's environment. */
  readonly simEnv?: Record<string, string>;
  /** RABBITMQ_URL of the service. Default: the machine's broker (RABBITMQ_URL, else 127.0.0.1:5672). */
  readonly rabbitmqUrl?: string;
}

/** One test file's running system: database, broker prefix, simulator and service, all its own. */
export interface World {
  readonly api: ApiClient;
  readonly sim: SimulatorClient;
  /** The api process (ROLE=all, or ROLE=api when split). */
  readonly service: () => ChildProcess;
  /** Base URL of the api (or all-in-one) process's ops listener: /healthz, detailed /readyz, /metrics. */
  readonly opsUrl: string;
  /** Base URL of the worker process's /healthz, /readyz, /metrics (split worlds; the first worker's). */
  readonly workerUrl: string;
  /** Base URLs of every worker process's ops listener (split worlds). */
  readonly workerUrls: readonly string[];
  /** The world's own database (DATABASE_URL of its processes). */
  readonly databaseUrl: string;
  /** The log files of the world's processes (service, worker, simulator, migrate). */
  readonly logFiles: () => string[];
  /** Starts the worker processes again (split worlds). */
  startWorker(): Promise<void>;
  /** Stops the worker processes with SIGTERM (split worlds). */
  stopWorker(): Promise<void>;
  /** Starts the api (or all-in-one) process again after it was stopped, with `env` added to its environment. */
  startService(env?: Record<string, string>): Promise<void>;
  /** Stops every process, drops the database and deletes the broker objects. Safe to call twice. */
  close(): Promise<void>;
}

/** The key sealing the accounts' secrets; a test that greps for secrets in clear knows it. */
export const ACCOUNTS_ENCRYPTION_KEY = Buffer.alloc(32, 'acceptance-key').toString('base64');

const DEFAULT_ENV: Record<string, string> = {
  ADMIN_TOKEN,
  ACCOUNTS_ENCRYPTION_KEY,
  DELAY_MODE: 'levels',
  // Short waits: a level-0 hop of 10 ms keeps sub-second delays exact; longer waits are chained.
  LEVELS_UNIT_MS: '10',
  LEVELS_COUNT: '16',
  RETRY_BASE_DELAY_MS: '100',
  RETRY_MAX_DELAY_MS: '500',
  LOG_LEVEL: process.env.ACCEPTANCE_LOG_LEVEL ?? 'warn',
};

/**
 * Waits for `url` to answer 200. When it does not in time, the error carries what the process says of
 * itself — its detailed readiness (`detailUrl`, the ops listener's /readyz) and the end of its log — so
 * that a failure in CI can be read without the machine.
 */
async function ready(url: string, what: string, explain: { detailUrl?: string; logName?: string } = {}) {
  try {
    await waitFor(async () => (await call(url)).status === 200, `${what} at ${url} to answer 200`, {
      timeoutMs: 30_000,
    });
  } catch (err) {
    const detail = explain.detailUrl ? await call(explain.detailUrl).then((a) => a.text, String) : '';
    const log = explain.logName ? tail(path.join(LOG_DIR, `${explain.logName}.log`), 40) : '';
    (err as Error).message += `\nreadiness: ${detail || '(not asked)'}\nlog:\n${log || '(none)'}`;
    throw err;
  }
}

/** The last `lines` lines of a file, or '' when it does not exist. */
function tail(file: string, lines: number): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n') : '';
}

/**
 * Starts a world: a fresh database migrated by the service's own `migrate` program, a random
 * BROKER_PREFIX, the simulator (`node dist/main/simulator.js`) and the service (`node dist/main/all.js`)
 * on free ports, configured only through their environment.
 */
export async function startWorld(opts: WorldOptions): Promise<World> {
  const accounts = JSON.stringify(opts.accounts ?? [anAccount()]);
  const [apiPort, apiOpsPort, simPort] = [await freePort(), await freePort(), await freePort()];
  const workerPorts: number[] = [];
  for (let i = 0; i < (opts.workers ?? 1); i++) workerPorts.push(await freePort());
  const database = await createDatabase();
  const prefix = randomBrokerPrefix();
  const simUrl = `http://127.0.0.1:${simPort}`;
  const env: Record<string, string> = {
    ...(opts.baseEnv ?? DEFAULT_ENV),
    ...opts.env,
    WECHAT_ACCOUNTS: accounts,
    WECHAT_API_BASE_URL: simUrl,
    // Used only when a world configures the third-party platform: the simulator's authorization page.
    WECHAT_COMPONENT_LOGIN_PAGE_URL: `${simUrl}/cgi-bin/componentloginpage`,
    DATABASE_URL: database.url,
    RABBITMQ_URL: opts.rabbitmqUrl ?? RABBITMQ_URL,
    BROKER_PREFIX: prefix,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(apiPort),
  };
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const workerUrls = workerPorts.map((port) => `http://127.0.0.1:${port}`);
  const log = (what: string) => `${opts.name}-${path.basename(prefix)}-${what}`;
  let simulator: ChildProcess | undefined;
  let service: ChildProcess | undefined;
  let workers: ChildProcess[] = [];
  let closed = false;

  const startService = async (added: Record<string, string> = {}) => {
    service = startProgram(
      'all',
      { ...env, ...added, ROLE: opts.split ? 'api' : 'all', OPS_PORT: String(apiOpsPort) },
      log('service'),
    );
    await ready(`${apiUrl}/readyz`, 'the service', {
      detailUrl: `http://127.0.0.1:${apiOpsPort}/readyz`,
      logName: log('service'),
    });
  };
  const startWorker = async () => {
    workers = workerPorts.map((port, i) =>
      startProgram('all', { ...env, ROLE: 'worker', OPS_PORT: String(port) }, log(`worker${i || ''}`)),
    );
    for (const [i, url] of workerUrls.entries()) {
      await ready(`${url}/readyz`, 'the worker', {
        detailUrl: `${url}/readyz`,
        logName: log(`worker${i || ''}`),
      });
    }
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const child of [service, ...workers, simulator]) if (child) await stopProgram(child);
    await database.drop();
    await deleteBrokerObjects(env.RABBITMQ_URL, prefix, {
      unitMs: Number(env.LEVELS_UNIT_MS ?? 100),
      count: Number(env.LEVELS_COUNT ?? 26),
    });
  };

  try {
    await runProgram('migrate', { DATABASE_URL: database.url, LOG_LEVEL: 'warn' }, log('migrate'));
    simulator = startProgram(
      'simulator',
      {
        SIM_PORT: String(simPort),
        SIM_HOST: '127.0.0.1',
        WECHAT_ACCOUNTS: accounts,
        SIM_WEBHOOK_URL: apiUrl,
        SIM_ENFORCE_WINDOW: String(opts.enforceWindow ?? true),
        LOG_LEVEL: 'warn',
        ...opts.simEnv,
      },
      log('simulator'),
    );
    await ready(`${simUrl}/__sim/stats`, 'the simulator', { logName: log('simulator') });
    for (const { appId } of opts.accounts ?? [anAccount()]) {
      await createSimulatorClient(simUrl, appId).templates([ACCEPTANCE_TEMPLATE]);
    }
    await startService();
    if (opts.split) await startWorker();
  } catch (err) {
    // The start's error is the one to see: a clean-up failing after it (the broker unreachable) must not hide it.
    await close().catch(() => undefined);
    throw err;
  }

  const appId = (opts.accounts ?? [anAccount()])[0].appId;
  return {
    api: createApiClient(apiUrl, env.ADMIN_TOKEN),
    sim: createSimulatorClient(simUrl, appId),
    service: () => service!,
    opsUrl: `http://127.0.0.1:${apiOpsPort}`,
    workerUrl: workerUrls[0],
    workerUrls,
    databaseUrl: database.url,
    logFiles: () =>
      ['service', 'simulator', 'migrate', ...workerPorts.map((_, i) => `worker${i || ''}`)]
        .map((what) => path.join(LOG_DIR, `${log(what)}.log`))
        .filter((file) => existsSync(file)),
    startWorker,
    stopWorker: async () => {
      for (const worker of workers) if (isRunning(worker)) await stopProgram(worker);
    },
    startService,
    close,
  };
}
