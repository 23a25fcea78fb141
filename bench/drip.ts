import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { request } from 'undici';
import { loadConfig } from '../src/config';
import { createPool } from '../src/db/pool';
import { createLogger } from '../src/logger';
import { startService, type Service } from '../src/main/start-service';
import { scheduleMessages } from '../src/scheduling/schedule-messages';
import { parseScheduleRequest } from '../src/scheduling/schedule-request';
import { deleteTopology } from '../test/helpers/broker';
import { freePort } from '../test/helpers/free-port';
import { withSearchPath } from '../test/helpers/services';
import type { BenchEnv, BenchMessage, SystemUnderTest } from './system';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const LEVELS = { unitMs: 100, count: 26 };

/** The worker tuning every wechat-drip run uses (stated in the report). */
export const DRIP_TUNING: Record<string, string> = {
  WORKER_PREFETCH: '1000',
  WORKER_BATCH_SIZE: '200',
  WORKER_CONCURRENT_BATCHES: '4',
  WORKER_BATCH_WAIT_MS: '5',
  DATABASE_POOL_SIZE: '10',
  // A worker claims only into free send slots: enough for the batches above to be claimed whole, as the
  // simulator answers in about a millisecond (the default, 64, suits WeChat's real latency).
  WORKER_SEND_CONCURRENCY: '800',
  WECHAT_MAX_CONNECTIONS: '800',
};

/** wechat-drip also has a second front door: a producer linking the library (no HTTP). */
export interface DripSystem extends SystemUnderTest {
  /** Commits the rows and waits for the broker's confirms of their wake-ups, in this process. */
  schedulePublishPath(messages: readonly BenchMessage[]): Promise<string[]>;
  /** Calls the admin API (`/v1/…`) and returns its JSON answer; throws unless 2xx. */
  admin(pathname: string, body: unknown): Promise<unknown>;
  /** The Postgres schema of the running system ('' when stopped). */
  schemaName(): string;
  /** The broker-name prefix of its queues and exchanges ('' when stopped). */
  brokerPrefix(): string;
  /** The pids of its api and worker processes (empty when stopped). */
  rolePids(): { api: number[]; worker: number[] };
}

/** What a scenario may change: fields added to the account, the api's port (known before the start). */
export interface DripOptions {
  readonly account?: Record<string, unknown>;
  readonly apiPort?: number;
  /** Added to every process's environment (e.g. PUBLISH_HORIZON). */
  readonly env?: Record<string, string>;
  /** The node of `rabbitmqUrl` for `rabbitmqctl -n`, when not this machine's default one. */
  readonly rabbitmqNode?: string;
}

function line(env: BenchEnv, m: BenchMessage): Record<string, unknown> {
  return {
    appId: env.appId,
    openid: m.openid,
    message: { msgtype: 'text', text: { content: m.tag } },
    sendAt: new Date(m.dueAt).toISOString(),
    ...(m.cancelKey ? { cancelKey: m.cancelKey } : {}),
  };
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url}/readyz did not answer ready within 30 s`);
}

/**
 * wechat-drip as deployed: one api process (the front door) and `env.workers` worker processes, in a
 * schema and under a broker prefix of their own, in `levels` or `plugin` mode.
 */
export function createDripSystem(
  env: BenchEnv,
  mode: 'levels' | 'plugin',
  rabbitmqUrl: string,
  opts: DripOptions = {},
): DripSystem {
  const logger = createLogger({ level: 'warn', name: 'bench-drip' });
  let schema = '';
  let prefix = '';
  let apiUrl = '';
  let children: ChildProcess[] = [];
  let roles = new Map<ChildProcess, 'api' | 'worker'>();
  let workerUrls: string[] = [];
  // Started by the first publish-path call (concurrent calls share the one promise).
  let producer: Promise<Service> | null = null;
  const sendRate = 1_000_000;
  const serviceEnv = (): Record<string, string> => ({
    ADMIN_TOKEN,
    // The bench account's secret is sealed in the accounts table under this key (any 32 bytes will do).
    ACCOUNTS_ENCRYPTION_KEY: Buffer.alloc(32, 'bench').toString('base64'),
    WECHAT_ACCOUNTS: JSON.stringify([
      {
        appId: env.appId,
        secret: env.secret,
        sendRatePerSecond: sendRate,
        windowPolicy: 'none',
        ...opts.account,
      },
    ]),
    WECHAT_API_BASE_URL: env.simUrl,
    DATABASE_URL: withSearchPath(env.databaseUrl, schema),
    RABBITMQ_URL: rabbitmqUrl,
    BROKER_PREFIX: prefix,
    DELAY_MODE: mode,
    LEVELS_UNIT_MS: String(LEVELS.unitMs),
    LEVELS_COUNT: String(LEVELS.count),
    LOG_LEVEL: 'warn',
    // Every process has an ops listener; several run on this machine, so each takes a free port.
    OPS_PORT: '0',
    ...DRIP_TUNING,
    ...opts.env,
  });

  function entry(name: string): string {
    return path.resolve(env.benchDir, '../../dist/main', `${name}.js`);
  }

  async function runMigrations(): Promise<void> {
    const child = spawn(process.execPath, [entry('migrate')], {
      env: { ...process.env, ...serviceEnv() },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    if (code !== 0) throw new Error(`migrations failed (exit ${code})`);
  }

  function spawnRole(role: 'api' | 'worker', extra: Record<string, string>): ChildProcess {
    // BENCH_PROFILE_DIR: each service process writes a CPU profile there when it stops, named by role.
    const profile = process.env.BENCH_PROFILE_DIR;
    const name = `${role}-${Date.now()}-${children.length}.cpuprofile`;
    const args = profile
      ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${name}`, entry(role)]
      : [entry(role)];
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...serviceEnv(), ...extra },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    roles.set(child, role);
    return child;
  }

  async function post(body: string): Promise<{ ok: boolean; id?: string; error?: unknown }[]> {
    const res = await fetch(`${apiUrl}/v1/messages/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    if (!res.ok) throw new Error(`batch answered ${res.status}: ${await res.text()}`);
    return (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ok: boolean; id?: string; error?: unknown });
  }

  async function api(pathname: string, body: unknown, method = 'POST'): Promise<string> {
    const res = await fetch(`${apiUrl}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${await res.text()}`);
    return res.text();
  }

  return {
    name: `wechat-drip (${mode})`,
    rabbitmqNode: opts.rabbitmqNode,
    settings:
      `1 api + ${env.workers} worker processes; prefetch ${DRIP_TUNING.WORKER_PREFETCH}, claim batches of ` +
      `${DRIP_TUNING.WORKER_BATCH_SIZE} × ${DRIP_TUNING.WORKER_CONCURRENT_BATCHES} in flight per worker ` +
      `(${DRIP_TUNING.WORKER_SEND_CONCURRENCY} send slots), ` +
      `pg pool ${DRIP_TUNING.DATABASE_POOL_SIZE}` +
      (mode === 'levels' ? `; ${LEVELS.count} levels × ${LEVELS.unitMs} ms unit` : '; x-delay on the plugin'),

    async start() {
      schema = `bench_drip_${randomBytes(4).toString('hex')}`;
      prefix = `bench.${randomBytes(4).toString('hex')}`;
      const pool = createPool({ connectionString: env.databaseUrl, max: 1, logger });
      await pool.query(`CREATE SCHEMA ${schema}`);
      await pool.end();
      await runMigrations();
      const apiPort = opts.apiPort ?? (await freePort());
      apiUrl = `http://127.0.0.1:${apiPort}`;
      const waits = [waitReady(apiUrl, spawnRole('api', { HTTP_PORT: String(apiPort) }))];
      for (let i = 0; i < env.workers; i++) {
        const port = await freePort();
        workerUrls.push(`http://127.0.0.1:${port}`);
        waits.push(waitReady(`http://127.0.0.1:${port}`, spawnRole('worker', { OPS_PORT: String(port) })));
      }
      await Promise.all(waits);
    },

    async schedule(messages) {
      const results = await post(messages.map((m) => JSON.stringify(line(env, m))).join('\n'));
      const lines = results.filter((r) => 'ok' in r);
      const refused = lines.find((r) => !r.ok);
      if (refused || lines.length !== messages.length)
        throw new Error(`the batch refused a line: ${JSON.stringify(refused ?? results.at(-1))}`);
      return lines.map((r) => r.id as string);
    },

    async schedulePublishPath(messages) {
      producer ??= startService(loadConfig({ ...serviceEnv(), ROLE: 'api', HTTP_PORT: '0' }), logger, {
        searchPath: schema,
      });
      const service = await producer;
      const ctx = { appIds: new Set([env.appId]), maxAheadMs: 400 * 86_400_000, now: new Date() };
      const published: Promise<unknown>[] = [];
      const results = await scheduleMessages(
        {
          pool: service.pool,
          publisher: service.publisher,
          logger,
          metrics: service.metrics,
          track: (work) => published.push(work),
        },
        messages.map((m) => parseScheduleRequest(line(env, m), ctx)),
      );
      await Promise.all(published);
      return results.map((r) => {
        if (!r.ok) throw r.error;
        return r.message.id;
      });
    },

    singleCall: 'POST /v1/messages',

    // undici's request, not fetch: this process shares the machine's two cores with the system measured,
    // and fetch (WHATWG streams and objects around the same client) cost it about 800 µs of CPU a call
    // against 250 µs — more than the api spent answering it. The peers' calls are their own lean clients.
    async scheduleOne(message) {
      const res = await request(`${apiUrl}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(line(env, message)),
      });
      const body = (await res.body.json()) as { id?: string };
      if (res.statusCode !== 201 || !body.id) throw new Error(`POST /v1/messages answered ${res.statusCode}`);
      return body.id;
    },

    admin: async (pathname, body) => JSON.parse(await api(pathname, body)) as unknown,
    schemaName: () => schema,
    brokerPrefix: () => (schema === '' ? '' : prefix),
    rolePids: () => {
      const of = (role: 'api' | 'worker') =>
        children.flatMap((c) => (roles.get(c) === role && c.pid !== undefined ? [c.pid] : []));
      return { api: of('api'), worker: of('worker') };
    },

    async cancelById(ids) {
      // Up to 10,000 ids per request; each id is answered (cancelled, or why not).
      const stopped: string[] = [];
      for (let i = 0; i < ids.length; i += 10_000) {
        const answer = await api('/v1/cancellations', { ids: ids.slice(i, i + 10_000), reason: 'benchmark' });
        const { results } = JSON.parse(answer) as { results: { id: string; outcome: string }[] };
        for (const r of results)
          if (r.outcome === 'cancelled' || r.outcome === 'already_cancelled') stopped.push(r.id);
      }
      return stopped;
    },

    async cancelOne(id) {
      const res = await fetch(`${apiUrl}/v1/messages/${id}?reason=benchmark`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      await res.arrayBuffer();
      // 409: already being sent or sent; anything else is the bench's own mistake.
      if (!res.ok && res.status !== 409) throw new Error(`DELETE /v1/messages/${id} answered ${res.status}`);
      return res.ok;
    },

    async cancelByKey(key) {
      await api('/v1/cancellations', { appId: env.appId, cancelKey: key, reason: 'benchmark' });
    },

    async stop() {
      const share = await workersOwnShare(workerUrls).catch(() => null);
      if (share) process.stdout.write(`  worker's own share (wake-up due → answer): ${share}\n`);
      workerUrls = [];
      await (await producer)?.stop();
      producer = null;
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
            }),
        ),
      );
      children = [];
      roles = new Map();
      if (schema === '') return;
      const pool = createPool({ connectionString: env.databaseUrl, max: 1, logger });
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
      await deleteTopology(rabbitmqUrl, prefix, LEVELS);
      schema = '';
    },
  };
}

const SHARE = 'wechat_drip_wakeup_to_answer_seconds';

/** p50 / p99 of the workers' `wakeup_to_answer` histogram (upper bucket bounds), summed over the workers. */
async function workersOwnShare(urls: readonly string[]): Promise<string | null> {
  const buckets = new Map<number, number>();
  for (const url of urls) {
    for (const line of (await (await fetch(`${url}/metrics`)).text()).split('\n')) {
      const m = new RegExp(`^${SHARE}_bucket\\{le="([^"]+)"\\} (\\d+)`).exec(line);
      const le = m && (m[1] === '+Inf' ? Infinity : Number(m[1]));
      if (m && le !== null) buckets.set(le, (buckets.get(le) ?? 0) + Number(m[2]));
    }
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const count = sorted.at(-1)?.[1] ?? 0;
  if (count === 0) return null;
  const top = sorted.filter(([le]) => le !== Infinity).at(-1)?.[0] ?? 0;
  const upTo = (q: number) => {
    const le = sorted.find(([, n]) => n >= q * count)![0];
    return le === Infinity ? `> ${top * 1000} ms` : `≤ ${le * 1000} ms`;
  };
  return `p50 ${upTo(0.5)}, p99 ${upTo(0.99)} over ${count} sends`;
}
