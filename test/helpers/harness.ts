import { loadConfig, type Config } from '../../src/config';
import { startService, type Service } from '../../src/main/start-service';
import type { SimulatorAccount } from '../../src/simulator/config';
import type { SimComponent } from '../../src/simulator/open-platform';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import type { SimTemplate } from '../../src/simulator/templates';
import { deleteTopology, randomPrefix, TEST_RABBITMQ_URL } from './broker';
import { APP_ID } from './builders';
import { createTestDb, TEST_DATABASE_URL, type TestDb } from './db';
import { silentLogger } from './logger';
import { freePort } from './free-port';

export { freePort };

export { APP_ID };
export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** The key sealing the accounts' secrets in every harness's schema. */
export const ACCOUNTS_ENCRYPTION_KEY = Buffer.alloc(32, 'harness-key').toString('base64');
const SECRET = 'test-secret';

export interface Harness {
  readonly db: TestDb;
  readonly simulator: Simulator;
  readonly simulatorUrl: string;
  readonly prefix: string;
  readonly env: Record<string, string>;
  /** Starts a service process (in-process) on this harness's schema, broker prefix and simulator. */
  start(overrides?: Record<string, string>): Promise<Service>;
  /** Authorised fetch against a service's API. */
  api(service: Pick<Service, 'url'>, path: string, init?: RequestInit): Promise<Response>;
  /** Stops every service started, the simulator, drops the schema and the broker topology. */
  close(): Promise<void>;
}

/**
 * One test file's world: a fresh schema, a random broker prefix, a WeChat simulator on a free port, and
 * services started on them with the real config loader (env overrides per test).
 */
export async function createHarness(
  base: Record<string, string> = {},
  opts: {
    enforceContactWindow?: boolean;
    simulatorAccounts?: SimulatorAccount[];
    /** The third-party platform whose Open Platform the simulator plays (no timer pushes: a day apart). */
    simulatorComponent?: SimComponent;
    /** The simulator's clock (epoch ms), for tests that move WeChat's time; default Date.now. */
    simulatorNow?: () => number;
    /** The template library of every simulator account (instead of the example templates). */
    templates?: SimTemplate[];
  } = {},
): Promise<Harness> {
  const db = await createTestDb({ poolSize: 4, databaseUrl: base.DATABASE_URL });
  // The api's port is chosen up front so that the simulator can push to its webhook.
  const apiPort = base.HTTP_PORT ?? String(await freePort());
  const accounts = JSON.parse(base.WECHAT_ACCOUNTS ?? 'null') as SimulatorAccount[] | null;
  const simulator = createSimulator({
    // The same accounts as the service (tokens, keys, window policy), unless a test wants them to differ.
    accounts: opts.simulatorAccounts ?? accounts ?? [{ appId: APP_ID, secret: SECRET }],
    logger: silentLogger,
    webhookBaseUrl: `http://127.0.0.1:${apiPort}`,
    enforceContactWindow: opts.enforceContactWindow ?? false,
    ...(opts.simulatorNow ? { now: opts.simulatorNow } : {}),
    ...(opts.simulatorComponent ? { component: opts.simulatorComponent, ticketIntervalMs: 86_400_000 } : {}),
  });
  const simulatorAccounts = opts.simulatorAccounts ?? accounts ?? [{ appId: APP_ID, secret: SECRET }];
  if (opts.templates) for (const a of simulatorAccounts) simulator.registerTemplates(a.appId, opts.templates);
  const { url: simulatorUrl } = await simulator.listen(0, '127.0.0.1');
  const prefix = randomPrefix();
  const env: Record<string, string> = {
    ADMIN_TOKEN,
    WECHAT_ACCOUNTS: JSON.stringify([
      { appId: APP_ID, secret: SECRET, sendRatePerSecond: 5000, windowPolicy: 'none' },
    ]),
    ACCOUNTS_ENCRYPTION_KEY,
    WECHAT_API_BASE_URL: simulatorUrl,
    DATABASE_URL: TEST_DATABASE_URL,
    RABBITMQ_URL: TEST_RABBITMQ_URL,
    BROKER_PREFIX: prefix,
    DELAY_MODE: 'levels',
    LEVELS_COUNT: '12',
    HTTP_PORT: apiPort,
    // Several services run in one test process (and spawned ones share the machine): a free port each.
    OPS_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG ?? 'silent',
    ...base,
  };
  const services: Service[] = [];
  let lastConfig: Config | null = null;
  return {
    db,
    simulator,
    simulatorUrl,
    prefix,
    env,
    async start(overrides = {}) {
      lastConfig = loadConfig({ ...env, ...overrides });
      const service = await startService(lastConfig, silentLogger, { searchPath: db.schema });
      services.push(service);
      return service;
    },
    api(service, path, init = {}) {
      return fetch(`${service.url}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          ...init.headers,
        },
      });
    },
    async close() {
      for (const s of services.splice(0)) await s.stop().catch(() => undefined);
      await simulator.close();
      await db.drop();
      const count = Number(lastConfig?.levelsCount ?? env.LEVELS_COUNT);
      await deleteTopology(env.RABBITMQ_URL, prefix, { unitMs: Number(env.LEVELS_UNIT_MS ?? 100), count });
    },
  };
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it became true. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return check();
}

/** Ms until `check` holds, polled every 10 ms; fails the test after 5 s (a registry seeing a change). */
export async function msUntil(check: () => boolean): Promise<number> {
  const started = Date.now();
  expect(await waitFor(check, 5000, 10)).toBe(true);
  return Date.now() - started;
}

/** The checks of an api (or all-in-one) process's detailed /readyz, in order. */
export const API_READINESS_CHECKS = [
  'postgres',
  'migrations',
  'rabbitmq',
  'accounts',
  'apiKeys',
  'transport',
];

/** Row counts of the tables a bad request must not write to. */
export async function writtenRows(
  db: TestDb,
): Promise<{ messages: number; cancellations: number; sequences: number; pushes: number }> {
  const { rows } = await db.pool.query<{
    messages: number;
    cancellations: number;
    sequences: number;
    pushes: number;
  }>(
    `SELECT (SELECT count(*)::int FROM scheduled_messages) AS messages,
            (SELECT count(*)::int FROM cancellations) AS cancellations,
            (SELECT count(*)::int FROM sequences) AS sequences,
            (SELECT count(*)::int FROM webhook_pushes) AS pushes`,
  );
  return rows[0];
}

/**
 * A harness with its service, started before the file's tests (`createHarness(base)`) and closed after
 * them: read `h` and `service` inside the tests.
 */
export function useStartedService(base: Record<string, string>): { h: Harness; service: Service } {
  const started = {} as { h: Harness; service: Service };
  beforeAll(async () => {
    started.h = await createHarness(base);
    started.service = await started.h.start();
  });
  afterAll(() => started.h.close());
  return started;
}
