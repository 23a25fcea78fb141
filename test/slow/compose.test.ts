/**
 * The docker/ and rabbitmq/ files, checked without a Docker engine: `docker-compose config` (Debian's
 * docker-compose 1.29) validates and expands docker/compose.yaml, promtool checks the Prometheus config and
 * the dashboard's queries, and the files are cross-checked against each other and against the service's
 * own configuration loaders and metrics registry.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onPath } from '../helpers/path';
import { ensurePromtool, hasPyYaml, requiring, yamlToJson } from '../helpers/tools';
import { promisify } from 'node:util';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { loadConfig, loadMigrateConfig } from '../../src/config';
import { createMetrics } from '../../src/metrics';
import { loadSimulatorConfig } from '../../src/simulator/config';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The service's metrics and their labels, as the dashboard uses them (issue 5's list). */
const SERVICE_METRICS: Record<string, readonly string[]> = {
  wechat_drip_messages_scheduled_total: ['channel'],
  wechat_drip_wakeups_published_total: ['transport', 'reason'],
  wechat_drip_wakeups_delivered_total: ['verdict'],
  wechat_drip_messages_sent_total: ['channel'],
  wechat_drip_messages_skipped_total: ['reason'],
  wechat_drip_messages_cancelled_total: ['scope'],
  wechat_drip_messages_failed_total: ['reason'],
  wechat_drip_messages_unknown_total: ['reason'],
  wechat_drip_send_retries_total: ['reason'],
  wechat_drip_dead_lettered_total: ['reason'],
  wechat_drip_token_refreshes_total: ['app_id', 'outcome'],
  wechat_drip_webhook_pushes_total: ['type', 'verdict'],
  wechat_drip_window_checks_total: ['verdict'],
  wechat_drip_lateness_seconds: [],
  wechat_drip_wechat_request_duration_seconds: ['endpoint', 'outcome'],
  wechat_drip_outbox_backlog_messages: [],
  wechat_drip_outbox_oldest_age_seconds: [],
  wechat_drip_horizon_pump_lag_seconds: [],
  wechat_drip_queued_messages: ['transport'],
  wechat_drip_transport_info: ['mode'],
  wechat_drip_postgres_up: [],
  wechat_drip_broker_connected: [],
  wechat_drip_account_paused: ['app_id', 'reason'],
};
const HISTOGRAMS = new Set(['wechat_drip_lateness_seconds', 'wechat_drip_wechat_request_duration_seconds']);
/** Labels Prometheus adds to every scraped series (`role` comes from docker/prometheus.yml). */
const TARGET_LABELS = ['job', 'instance', 'role'];

/** prom-client's default process metrics (process_cpu_seconds_total, nodejs_eventloop_lag_seconds, …). */
function defaultMetricNames(): Set<string> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const names = new Set(registry.getMetricsAsArray().map((m) => m.name));
  registry.clear();
  return names;
}

/**
 * Installs docker-compose (Debian package, without the Docker engine it recommends) when it is missing
 * and this runs as root. Answers why it is still missing, or null when it is there. Synchronous: whether
 * the checks run must be known before they are defined, so that a check not run reports itself skipped.
 */
function ensureDockerCompose(): string | null {
  if (onPath('docker-compose')) return null;
  if (process.getuid?.() !== 0) {
    return 'docker-compose is missing and installing it needs root: apt-get install docker-compose';
  }
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: 'ignore',
      timeout: 300_000,
    }).status === 0;
  const install = () => apt(['install', '-y', '-qq', '--no-install-recommends', 'docker-compose']);
  // A fresh machine has no package lists yet.
  if (!install() && apt(['update', '-qq'])) install();
  return onPath('docker-compose') ? null : 'docker-compose is missing and apt-get could not install it';
}

const composeMissing =
  ensureDockerCompose() ?? (hasPyYaml() ? null : 'python3-yaml, a dependency of docker-compose, is missing');
const promtoolMissing = ensurePromtool();
/** A check that needs docker-compose (and PyYAML with it). */
const itWithCompose = requiring(composeMissing, 'compose.test.ts');
/** A check that runs scripts/compose-env.sh. */
const itWithShell = requiring(
  ['bash', 'sed', 'openssl'].every(onPath)
    ? null
    : 'bash, sed and openssl are needed by scripts/compose-env.sh',
  'compose.test.ts',
);
/** A check that needs promtool. */
const itWithPromtool = requiring(promtoolMissing, 'compose.test.ts');

type Env = Record<string, string>;
interface HealthCheck {
  test: string[];
  disable?: boolean;
}
interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  environment?: Env;
  ports?: unknown[];
  expose?: string[];
  container_name?: string;
  hostname?: string;
  healthcheck?: HealthCheck;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
}
interface ComposeConfig {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

let compose: ComposeConfig | null = null;

/** A clean environment: nothing the test runner's shell set reaches compose. */
const CLEAN_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

/** `docker-compose config` of docker/compose.yaml in a clean environment, with `args` before `config`. */
const composeConfig = (args: string[] = []) =>
  spawnSync('docker-compose', ['-f', 'docker/compose.yaml', ...args, 'config'], {
    cwd: ROOT,
    env: CLEAN_ENV,
    encoding: 'utf8',
    timeout: 60_000,
  });

/** Runs scripts/compose-env.sh (what `make up` runs first) on `file`; its output. */
const composeEnv = (file: string) =>
  spawnSync(join(ROOT, 'scripts/compose-env.sh'), [file], { env: CLEAN_ENV, encoding: 'utf8' });

/** `KEY=value` lines of an env file. */
const envFile = (file: string): Env =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/**
 * docker/compose.yaml as `docker-compose config` expands it in a clean environment, with the env file
 * `make up` writes on its first run (the defaults apply to everything else).
 */
function expanded(): ComposeConfig {
  if (composeMissing) throw new Error(composeMissing);
  if (!compose) {
    const dir = mkdtempSync(join(tmpdir(), 'compose-env-'));
    try {
      composeEnv(join(dir, '.env'));
      const out = composeConfig(['--env-file', join(dir, '.env')]);
      if (out.status !== 0) throw new Error(`docker-compose config failed: ${out.stderr}`);
      compose = yamlToJson(out.stdout) as ComposeConfig;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return compose;
}
const service = (c: ComposeConfig, name: string): Service => {
  const s = c.services[name];
  if (!s) throw new Error(`no service ${name}`);
  return s;
};
const healthTest = (s: Service) => (s.healthcheck?.test ?? []).join(' ');

describe('docker/compose.yaml, as docker-compose config expands it', () => {
  itWithCompose(
    'defines the whole stack, the application services sharing one image built from docker/Dockerfile',
    () => {
      const c = expanded();
      expect(Object.keys(c.services).sort()).toEqual(
        ['api', 'grafana', 'migrate', 'postgres', 'prometheus', 'rabbitmq', 'simulator', 'worker'].sort(),
      );
      for (const name of ['api', 'worker', 'migrate', 'simulator']) {
        const s = service(c, name);
        expect({ name, image: s.image, context: s.build?.context, dockerfile: s.build?.dockerfile }).toEqual({
          name,
          image: 'wechat-drip:local',
          context: ROOT,
          dockerfile: 'docker/Dockerfile',
        });
      }
      expect(service(c, 'simulator').command).toEqual([
        'node',
        '--enable-source-maps',
        'dist/main/simulator.js',
      ]);
      expect(service(c, 'migrate').command).toEqual(['node', '--enable-source-maps', 'dist/main/migrate.js']);
      expect(service(c, 'api').environment!.ROLE).toBe('api');
      expect(service(c, 'worker').environment!.ROLE).toBe('worker');
      expect(service(c, 'postgres').image).toBe('postgres:16');
      expect(service(c, 'rabbitmq').build!.context).toBe(join(ROOT, 'rabbitmq'));
    },
  );

  itWithCompose(
    'lets `--scale worker=3` run: the worker publishes no host port and has no fixed container name',
    () => {
      const c = expanded();
      const worker = service(c, 'worker');
      expect(worker.ports ?? []).toEqual([]);
      expect(worker.container_name).toBeUndefined();
      expect(worker.expose).toEqual([worker.environment!.OPS_PORT]);
      // The api publishes its public port and its ops port, on the host's loopback only.
      const apiEnv = service(c, 'api').environment!;
      expect((service(c, 'api').ports ?? []).map(String).sort()).toEqual(
        [
          `127.0.0.1:${apiEnv.HTTP_PORT}:${apiEnv.HTTP_PORT}/tcp`,
          `127.0.0.1:${apiEnv.OPS_PORT}:${apiEnv.OPS_PORT}/tcp`,
        ].sort(),
      );
      // Only services that run once publish ports, each on the host's loopback.
      for (const [name, s] of Object.entries(c.services)) {
        for (const port of s.ports ?? [])
          expect({ name, port: String(port) }).toMatchObject({ port: /^127\.0\.0\.1:/ });
      }
    },
  );

  itWithCompose(
    'gives every long-running service a healthcheck on the right port, and none to the one-shot migration',
    () => {
      const c = expanded();
      expect(healthTest(service(c, 'postgres'))).toMatch(/pg_isready .*-U drip -d wechat_drip/);
      expect(healthTest(service(c, 'rabbitmq'))).toMatch(/rabbitmq-diagnostics -q ping/);
      const api = service(c, 'api');
      const worker = service(c, 'worker');
      // Both on the ops listener, which every role has.
      expect(healthTest(api)).toContain(`127.0.0.1:${api.environment!.OPS_PORT}/healthz`);
      expect(healthTest(worker)).toContain(`127.0.0.1:${worker.environment!.OPS_PORT}/healthz`);
      expect(healthTest(service(c, 'simulator'))).toContain(
        `127.0.0.1:${service(c, 'simulator').environment!.SIM_PORT}/__sim/stats`,
      );
      expect(service(c, 'migrate').healthcheck!.test).toEqual(['NONE']);
    },
  );

  itWithCompose(
    'starts in order: migrate after a healthy Postgres; api and worker after it completed and RabbitMQ is healthy',
    () => {
      const c = expanded();
      expect(service(c, 'migrate').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      for (const name of ['api', 'worker']) {
        expect(service(c, name).depends_on).toMatchObject({
          migrate: { condition: 'service_completed_successfully' },
          rabbitmq: { condition: 'service_healthy' },
        });
      }
    },
  );

  itWithCompose('gives each process an environment its own configuration loader accepts', () => {
    const c = expanded();
    for (const name of ['api', 'worker']) {
      const config = loadConfig(service(c, name).environment);
      expect(config).toMatchObject({
        role: name,
        httpHost: '0.0.0.0',
        httpPort: 3000,
        opsHost: '0.0.0.0',
        opsPort: 3001,
        delayMode: 'plugin',
        rabbitmqUrls: ['amqp://drip:drip@rabbitmq:5672'],
        wechatApiBaseUrl: 'http://simulator:4100',
      });
      expect(config.bootstrapAccounts.map((a) => a.appId)).toEqual(['wxdemo0000000001']);
    }
    expect(loadMigrateConfig(service(c, 'migrate').environment).databaseUrl).toBe(
      service(c, 'api').environment!.DATABASE_URL,
    );
    expect(loadSimulatorConfig(service(c, 'simulator').environment)).toMatchObject({
      host: '0.0.0.0',
      port: 4100,
      webhookBaseUrl: 'http://api:3000',
    });
  });

  itWithCompose(
    'refuses to start without ADMIN_TOKEN and ACCOUNTS_ENCRYPTION_KEY, saying that `make up` writes them',
    () => {
      const out = composeConfig();
      expect(out.status).not.toBe(0);
      expect(out.stderr).toMatch(/(ADMIN_TOKEN|ACCOUNTS_ENCRYPTION_KEY) is not set - run make up/);
    },
  );

  itWithCompose('runs with the fresh secrets `make up` generated, never a published one', () => {
    const api = service(expanded(), 'api').environment!;
    for (const published of ['change-me-please-0123', 'ZGVtby1rZXktbm90LWZvci1wcm9kdWN0aW9uLTAwMDA=']) {
      expect(Object.values(api)).not.toContain(published);
    }
    expect(api.ADMIN_TOKEN).toMatch(/^[0-9a-f]{48}$/);
    expect(Buffer.from(api.ACCOUNTS_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
    expect(service(expanded(), 'worker').environment).toMatchObject({
      ADMIN_TOKEN: api.ADMIN_TOKEN,
      ACCOUNTS_ENCRYPTION_KEY: api.ACCOUNTS_ENCRYPTION_KEY,
    });
  });

  itWithCompose('uses the demo account of .env.example, in the service and in the simulator alike', () => {
    const c = expanded();
    const line = read('.env.example')
      .split('\n')
      .find((l) => l.startsWith('WECHAT_ACCOUNTS='))!;
    const example = JSON.parse(line.slice('WECHAT_ACCOUNTS='.length).replace(/^'|'$/g, '')) as unknown;
    expect(JSON.parse(service(c, 'api').environment!.WECHAT_ACCOUNTS)).toEqual(example);
    expect(service(c, 'simulator').environment!.WECHAT_ACCOUNTS).toBe(
      service(c, 'api').environment!.WECHAT_ACCOUNTS,
    );
  });

  itWithCompose(
    'has credentials that agree: the broker user of the definitions and the Postgres superuser',
    () => {
      const c = expanded();
      const amqp = new URL(service(c, 'api').environment!.RABBITMQ_URL);
      const definitions = JSON.parse(read('rabbitmq/definitions.json')) as Definitions;
      const user = definitions.users.find((u) => u.name === amqp.username)!;
      expect(user).toBeDefined();
      expect(isRabbitSha256Hash(user.password_hash, amqp.password)).toBe(true);
      const db = new URL(service(c, 'api').environment!.DATABASE_URL);
      expect(service(c, 'postgres').environment).toMatchObject({
        POSTGRES_USER: db.username,
        POSTGRES_PASSWORD: db.password,
        POSTGRES_DB: db.pathname.slice(1),
      });
    },
  );

  itWithCompose(
    'keeps the broker data, including the plugin-held messages, across container re-creation',
    () => {
      const c = expanded();
      const rabbitmq = service(c, 'rabbitmq');
      expect(rabbitmq.hostname).toBe('rabbitmq');
      expect(rabbitmq.volumes).toEqual(['rabbitmq-data:/var/lib/rabbitmq:rw']);
      expect(service(c, 'postgres').volumes).toEqual(['postgres-data:/var/lib/postgresql/data:rw']);
    },
  );

  itWithCompose(
    'mounts files that exist: the Prometheus config and its alerting rules, the Grafana provisioning and dashboards',
    () => {
      const c = expanded();
      const binds = ['prometheus', 'grafana'].flatMap((name) =>
        (service(c, name).volumes ?? []).filter((v) => v.startsWith('/')).map((v) => v.split(':')),
      );
      expect(binds.map(([, target]) => target).sort()).toEqual([
        '/etc/grafana/dashboards',
        '/etc/grafana/provisioning',
        '/etc/prometheus/alerts.yml',
        '/etc/prometheus/prometheus.yml',
      ]);
      for (const [source] of binds) expect(existsSync(source)).toBe(true);
    },
  );
});

describe('docker/Dockerfile', () => {
  const stages = read('docker/Dockerfile')
    .split(/^FROM\s+/m)
    .slice(1)
    .map((s) => s.replace(/\s*\\\n\s*/g, ' '));
  const final = stages.at(-1)!;
  const directives = (stage: string, name: string) =>
    stage
      .split('\n')
      .filter((l) => l.startsWith(`${name} `))
      .map((l) => l.slice(name.length + 1).trim());

  it('builds in a stage of its own: npm ci (npm install when npm ci rejects the lock file), npm run build', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/^node:20-bookworm-slim AS build\n/);
    expect(stages[0]).toMatch(/RUN npm ci [^\n]*\|\| npm install /);
    expect(stages[0]).toContain('RUN npm run build');
  });

  it('runs production dependencies and dist/ only, as the non-root user node, with NODE_ENV=production', () => {
    expect(final).toMatch(/^node:20-bookworm-slim\n/);
    expect(final).toMatch(/npm ci --omit=dev [^\n]*\|\| npm install --omit=dev /);
    expect(final).not.toMatch(/npm run build|COPY \. /);
    expect(directives(final, 'COPY')).toContain('--from=build /app/dist ./dist');
    expect(directives(final, 'ENV')).toContain('NODE_ENV=production');
    expect(directives(final, 'USER').at(-1)).toBe('node');
    expect(directives(final, 'EXPOSE')).toEqual(['3000 3001']);
    expect(directives(final, 'HEALTHCHECK')[0]).toMatch(/OPS_PORT.*\/healthz/);
    expect(JSON.parse(directives(final, 'CMD')[0])).toEqual([
      'node',
      '--enable-source-maps',
      'dist/main/all.js',
    ]);
  });

  itWithShell(
    '`make up` writes fresh secrets into docker/.env on its first run, and keeps them on every later one',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'compose-env-'));
      try {
        const [a, b] = [join(dir, 'a.env'), join(dir, 'b.env')];
        writeFileSync(a, 'LOG_LEVEL=debug\nADMIN_TOKEN=\n');
        expect(composeEnv(a).stdout).toMatch(/fresh ADMIN_TOKEN[\s\S]*fresh ACCOUNTS_ENCRYPTION_KEY/);
        const first = envFile(a);
        expect(composeEnv(a).stdout).toBe('');
        expect(envFile(a)).toEqual(first);
        expect(Object.keys(first).sort()).toEqual(['ACCOUNTS_ENCRYPTION_KEY', 'ADMIN_TOKEN', 'LOG_LEVEL']);
        composeEnv(b);
        expect(envFile(b).ADMIN_TOKEN).not.toBe(first.ADMIN_TOKEN);
        expect(envFile(b).ACCOUNTS_ENCRYPTION_KEY).not.toBe(first.ACCOUNTS_ENCRYPTION_KEY);
        // What the service accepts as its token and key.
        expect(loadConfig({ ...first, WECHAT_ACCOUNTS: '[]' }).accountsEncryptionKey).toHaveLength(32);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('has a .dockerignore that keeps dependencies, build output and secrets out of the context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', 'dist', 'test-artifacts', '.env', 'docker/.env', '.git']) {
      expect(ignored).toContain(entry);
    }
  });
});

interface Definitions {
  vhosts: { name: string }[];
  users: { name: string; password_hash: string; hashing_algorithm: string; tags: string[] }[];
  permissions: { user: string; vhost: string; configure: string; write: string; read: string }[];
  queues?: unknown[];
  exchanges?: unknown[];
  bindings?: unknown[];
}

/**
 * What in a Dockerfile only BuildKit builds (Debian's docker.io defaults to the classic builder): `ADD
 * --checksum`, `--chmod` on ADD or COPY, `COPY --link` or `--parents`, `RUN --mount`, `--network` or
 * `--security`, and here-documents (`<<EOF`).
 */
function buildKitOnly(dockerfile: string): string[] {
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'));
  return instructions.filter(
    (l) =>
      /^\s*(ADD|COPY)\b.*--(checksum|chmod|link|parents)\b/i.test(l) ||
      /^\s*RUN\b.*--(mount|network|security)\b/i.test(l) ||
      /^\s*(RUN|COPY)\b.*<<-?\s*["']?[A-Z]+/i.test(l),
  );
}

/** RabbitMQ's rabbit_password_hashing_sha256: base64(salt ‖ sha256(salt ‖ password)), a 4-byte salt. */
function isRabbitSha256Hash(hash: string, password: string): boolean {
  const bytes = Buffer.from(hash, 'base64');
  const salt = bytes.subarray(0, 4);
  const digest = createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(password, 'utf8')]))
    .digest();
  return bytes.length === 36 && digest.equals(bytes.subarray(4));
}

describe('rabbitmq/', () => {
  const dockerfile = read('rabbitmq/Dockerfile').replace(/\s*\\\n\s*/g, ' ');
  const conf = Object.fromEntries(
    read('rabbitmq/rabbitmq.conf')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean)
      .map((l) => l.split('=').map((p) => p.trim()) as [string, string]),
  );

  it('builds RabbitMQ 4.2 with the delayed-message plugin release made for it, v4.2.0, checksummed', () => {
    expect(dockerfile).toMatch(/^FROM rabbitmq:4\.2-management$/m);
    const asset = 'rabbitmq_delayed_message_exchange-4.2.0.ez';
    expect(dockerfile).toContain(
      `ADD https://github.com/rabbitmq/rabbitmq-delayed-message-exchange/releases/download/v4.2.0/${asset} /tmp/${asset}\n`,
    );
    expect(dockerfile).toMatch(
      new RegExp(
        `^RUN echo "[0-9a-f]{64}  /tmp/${asset}" \\| sha256sum -c - && install -m 644 /tmp/${asset} /opt/rabbitmq/plugins/ `,
        'm',
      ),
    );
    expect(dockerfile).toMatch(
      /^COPY --chown=rabbitmq:rabbitmq enabled_plugins rabbitmq\.conf advanced\.config definitions\.json \/etc\/rabbitmq\/$/m,
    );
  });

  it('builds with the classic builder too: no instruction flag or syntax only BuildKit knows', () => {
    for (const file of ['rabbitmq/Dockerfile', 'docker/Dockerfile'])
      expect([file, buildKitOnly(read(file))]).toEqual([file, []]);
  });

  it('enables the management UI, the Prometheus endpoint and the delayed-message exchange', () => {
    expect(read('rabbitmq/enabled_plugins').trim()).toBe(
      '[rabbitmq_management,rabbitmq_prometheus,rabbitmq_delayed_message_exchange].',
    );
  });

  it('loads the definitions the image copies, lowers the quorum-queue WAL, and sets no key 4.2 lacks', () => {
    expect(conf).toMatchObject({
      load_definitions: '/etc/rabbitmq/definitions.json',
      'raft.wal_max_size_bytes': '64000000',
      'management.tcp.port': '15672',
      'prometheus.tcp.port': '15692',
    });
    // dead_letter_worker_consumer_prefetch has no rabbitmq.conf key; advanced.config sets it.
    expect(Object.keys(conf).filter((k) => k.includes('dead_letter'))).toEqual([]);
    expect(read('rabbitmq/advanced.config')).toMatch(/\{dead_letter_worker_consumer_prefetch, \d+\}/);
  });

  it('defines the vhost /, the local user drip/drip and its permissions, and no topology', () => {
    const definitions = JSON.parse(read('rabbitmq/definitions.json')) as Definitions;
    expect(definitions.vhosts.map((v) => v.name)).toEqual(['/']);
    expect(definitions.users).toHaveLength(1);
    expect(definitions.users[0]).toMatchObject({
      name: 'drip',
      hashing_algorithm: 'rabbit_password_hashing_sha256',
    });
    expect(isRabbitSha256Hash(definitions.users[0].password_hash, 'drip')).toBe(true);
    expect(definitions.permissions).toEqual([
      { user: 'drip', vhost: '/', configure: '.*', write: '.*', read: '.*' },
    ]);
    expect(definitions.queues ?? []).toEqual([]);
    expect(definitions.exchanges ?? []).toEqual([]);
    expect(definitions.bindings ?? []).toEqual([]);
  });
});

interface ScrapeConfig {
  job_name: string;
  static_configs?: { targets: string[] }[];
  dns_sd_configs?: { names: string[]; type: string; port: number }[];
}

describe('docker/prometheus.yml', () => {
  itWithPromtool('is a valid Prometheus configuration (promtool check config)', async () => {
    await expect(
      run('promtool', ['check', 'config', join(ROOT, 'docker/prometheus.yml')]),
    ).resolves.toBeDefined();
  });

  itWithCompose(
    'scrapes the api, every worker replica found by DNS, and RabbitMQ, on the ports compose gives them',
    () => {
      const c = expanded();
      const { scrape_configs: jobs } = yamlToJson(read('docker/prometheus.yml')) as {
        scrape_configs: ScrapeConfig[];
      };
      const job = (name: string) => jobs.find((j) => j.job_name === name)!;
      const apiEnv = service(c, 'api').environment!;
      const workerEnv = service(c, 'worker').environment!;
      // The ops port: /metrics is not on the public one.
      expect(job('wechat-drip-api').static_configs).toEqual([
        expect.objectContaining({ targets: [`api:${apiEnv.OPS_PORT}`] }),
      ]);
      expect(job('wechat-drip-worker').static_configs).toBeUndefined();
      expect(job('wechat-drip-worker').dns_sd_configs).toEqual([
        expect.objectContaining({ names: ['worker'], type: 'A', port: Number(workerEnv.OPS_PORT) }),
      ]);
      expect(job('rabbitmq').static_configs).toEqual([{ targets: ['rabbitmq:15692'] }]);
    },
  );
});

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; legendFormat?: string; datasource?: { uid: string } }[];
}

describe('the Grafana dashboard and its provisioning', () => {
  const dashboard = JSON.parse(read('docker/grafana/dashboards/wechat-drip.json')) as {
    uid: string;
    panels: Panel[];
  };
  const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));
  const defaults = defaultMetricNames();
  const metricsIn = (expr: string) => expr.match(/\b(?:wechat_drip|process|nodejs)_[a-z0-9_]+\b/g) ?? [];
  /** The metric a series name belongs to: histogram series (_bucket, _sum, _count) map to their histogram. */
  const metricOf = (series: string) => {
    const base = series.replace(/_(bucket|sum|count)$/, '');
    return HISTOGRAMS.has(base) ? base : series;
  };

  it('has panels whose every query reads metrics the service exports, grouped by labels they carry', () => {
    expect(queries.length).toBeGreaterThan(15);
    for (const q of queries) {
      const series = metricsIn(q.expr);
      expect({ panel: q.panel, expr: q.expr, metrics: series.length > 0 }).toMatchObject({ metrics: true });
      const labels = new Set(TARGET_LABELS);
      for (const s of series) {
        const metric = metricOf(s);
        const known = metric in SERVICE_METRICS || defaults.has(metric);
        expect({ panel: q.panel, metric, known }).toEqual({ panel: q.panel, metric, known: true });
        for (const l of SERVICE_METRICS[metric] ?? []) labels.add(l);
        if (s.endsWith('_bucket')) labels.add('le');
      }
      const grouped = [...q.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) =>
        m[1].split(',').map((l) => l.trim()),
      );
      for (const l of grouped)
        expect({ panel: q.panel, label: l, known: labels.has(l) }).toMatchObject({ known: true });
      // A legend can only name labels the query keeps.
      for (const [, l] of (q.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)) {
        expect({ panel: q.panel, legend: l, kept: grouped.includes(l) && l !== 'le' }).toMatchObject({
          kept: true,
        });
      }
    }
  });

  it('shows every metric of the service somewhere, and event-loop lag', () => {
    const used = new Set(queries.flatMap((q) => metricsIn(q.expr).map(metricOf)));
    expect(Object.keys(SERVICE_METRICS).filter((m) => !used.has(m))).toEqual([]);
    expect(used.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('names the metrics, with the labels, that src/metrics.ts registers', () => {
    const pool = { query: () => Promise.resolve({ rows: [{ n: 0 }] }) };
    const { registry } = createMetrics({
      pool: pool as unknown as Parameters<typeof createMetrics>[0]['pool'],
      transportMode: 'plugin',
      isBrokerConnected: () => true,
      publishHorizonMs: 3_600_000,
    });
    for (const [name, labels] of Object.entries(SERVICE_METRICS)) {
      const metric = registry.getSingleMetric(name) as unknown as { labelNames?: string[] } | undefined;
      expect({ name, registered: metric !== undefined }).toEqual({ name, registered: true });
      expect({ name, labels: [...(metric!.labelNames ?? [])].sort() }).toEqual({
        name,
        labels: [...labels].sort(),
      });
    }
    registry.clear();
  });

  itWithPromtool('has queries that are valid PromQL (promtool check rules)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
    try {
      // JSON is YAML: one recording rule per query, Grafana's interval variables replaced.
      const rules = queries.map((q, i) => ({
        record: `dashboard:query_${i}`,
        expr: q.expr.replace(/\$__(rate_)?interval/g, '1m'),
      }));
      writeFileSync(join(dir, 'rules.yml'), JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      await expect(run('promtool', ['check', 'rules', join(dir, 'rules.yml')])).resolves.toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  itWithCompose(
    'is provisioned with the Prometheus datasource its panels name, from the folder compose mounts',
    () => {
      const datasources = yamlToJson(read('docker/grafana/provisioning/datasources/prometheus.yaml')) as {
        datasources: { uid: string; type: string; url: string }[];
      };
      const [prometheus] = datasources.datasources;
      expect(prometheus).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
      const uids = new Set(
        dashboard.panels.flatMap((p) => [
          p.datasource?.uid,
          ...(p.targets ?? []).map((t) => t.datasource?.uid),
        ]),
      );
      uids.delete(undefined);
      expect([...uids]).toEqual([prometheus.uid]);
      const providers = yamlToJson(read('docker/grafana/provisioning/dashboards/wechat-drip.yaml')) as {
        providers: { type: string; options: { path: string } }[];
      };
      expect(providers.providers).toEqual([
        expect.objectContaining({
          type: 'file',
          options: expect.objectContaining({ path: '/etc/grafana/dashboards' }),
        }),
      ]);
    },
  );
});

describe('scripts/compose.sh (make up, down, logs)', () => {
  /** Runs the script with only `tools` (name → shell body) on its PATH, beside the bash and dirname it needs. */
  function composeWith(tools: Record<string, string>): { status: number | null; out: string; err: string } {
    const bin = mkdtempSync(join(tmpdir(), 'compose-bin-'));
    try {
      for (const tool of ['bash', 'dirname']) {
        // Looked up on the system's own PATH: this file also runs with only node on PATH (compose-skip.test.ts).
        const found = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], {
          env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
          encoding: 'utf8',
        }).stdout.trim();
        symlinkSync(found, join(bin, tool));
      }
      for (const [name, body] of Object.entries(tools))
        writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
      const result = spawnSync(join(ROOT, 'scripts/compose.sh'), ['up', '-d'], {
        env: { PATH: bin },
        encoding: 'utf8',
      });
      return { status: result.status, out: result.stdout, err: result.stderr };
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }

  it('runs the docker compose plugin when there is one, else docker-compose, else says what is missing', () => {
    const plugin = composeWith({
      docker: 'if [ "$1 $2" = "compose version" ]; then exit 0; fi; echo "docker $*"',
      'docker-compose': 'echo "docker-compose $*"',
    });
    expect(plugin.out.trim()).toBe('docker compose -p wechat-drip -f docker/compose.yaml up -d');
    const standalone = composeWith({
      docker: 'echo "docker: unknown command: docker $1" >&2; exit 1',
      'docker-compose': 'echo "docker-compose $*"',
    });
    expect(standalone.out.trim()).toBe('docker-compose -p wechat-drip -f docker/compose.yaml up -d');
    const neither = composeWith({});
    expect([neither.status, neither.err]).toEqual([
      127,
      expect.stringContaining('apt install docker-compose'),
    ]);
  });
});
