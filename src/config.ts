import { ConfigError } from './errors';
import { type DelayMode, envSchema, type Role } from './config/env-schema';
import type { WechatAccount } from './config/accounts';
import { parseEnv } from './env';
import { type PlatformConfig, platformConfig } from './config/platform';

// The types of Config's fields, where the rest of the service has always imported them from.
export type { PushMode, WechatAccount } from './config/accounts';
export type { DelayMode, Role } from './config/env-schema';
export type { PlatformConfig } from './config/platform';

export interface Config {
  /** Which parts this process runs: `api` (HTTP), `worker` (relay + consumer) or `all`. Default `all`. */
  readonly role: Role;
  /** Interface the public HTTP server (API, webhook, admin page) binds. Default 127.0.0.1. */
  readonly httpHost: string;
  /** Port of the public HTTP server. Default 3000. */
  readonly httpPort: number;
  /** Interface the ops listener (/metrics, detailed /readyz) binds, in every role. Default 127.0.0.1. */
  readonly opsHost: string;
  /** Port of the ops listener; 0 picks a free port. Default 3001. */
  readonly opsPort: number;
  /** A request whose headers and body have not all arrived after this many ms is cut (408). Default 30000. */
  readonly httpRequestTimeoutMs: number;
  /** A request whose headers have not all arrived after this many ms is cut (408). Default 10000. */
  readonly httpHeadersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this many ms. Default 5000. */
  readonly httpKeepAliveTimeoutMs: number;
  /** Open connections one listener accepts; further ones are closed at once. Default 1000. */
  readonly httpMaxConnections: number;
  /** Largest JSON request body in bytes (413 above). Default 65536. */
  readonly httpBodyLimitBytes: number;
  /** Bearer token for /v1 routes. Secret, at least 16 characters, required. */
  readonly adminToken: string;
  /** Postgres connection string. Default postgres://postgres@127.0.0.1:5432/wechat_drip. */
  readonly databaseUrl: string;
  /** Connections in this process's pool. Default 10. */
  readonly databasePoolSize: number;
  /**
   * RabbitMQ connection strings: one, or one per cluster node (RABBITMQ_URL comma-separated), tried in
   * turn on connect and on every reconnect. Default [amqp://guest:guest@127.0.0.1:5672].
   */
  readonly rabbitmqUrls: readonly string[];
  /** Delay transport: `auto` probes for the plugin at start-up. Default `auto`. */
  readonly delayMode: DelayMode;
  /** Prefix of every exchange and queue name. Default `wechat-drip`. */
  readonly brokerPrefix: string;
  /** Levels transport: the TTL of level 0 in ms; level L waits 2^L units. Default 100. */
  readonly levelsUnitMs: number;
  /** Levels transport: number of levels; longest single hop chain is (2^N − 1) units. Default 26 (≈ 77 days). */
  readonly levelsCount: number;
  /** Plugin transport: longest x-delay used; longer waits are chained. Default 86400000 (1 day). */
  readonly pluginMaxDelayMs: number;
  /** How far ahead a message may be scheduled, in days (400 → a year and a bit). Default 400. */
  readonly maxScheduleAheadDays: number;
  /** Broker publish confirm timeout in ms. Default 10000. */
  readonly publishTimeoutMs: number;
  /** Base URL of the WeChat API (the simulator in development). Default https://api.weixin.qq.com. */
  readonly wechatApiBaseUrl: string;
  /** Timeout of one WeChat HTTP call in ms. Default 10000. */
  readonly wechatTimeoutMs: number;
  /** Keep-alive connections to the WeChat API per process. Default 64. */
  readonly wechatMaxConnections: number;
  /** Refresh a cached access token when less than this many ms of life remain. Default 240000. */
  readonly tokenRefreshMarginMs: number;
  /**
   * WECHAT_ACCOUNTS, optional: accounts imported into Postgres at start-up when absent there (a bootstrap;
   * an account already stored is left as it is). Every process reads accounts from the registry.
   */
  readonly bootstrapAccounts: readonly WechatAccount[];
  /** ACCOUNTS_ENCRYPTION_KEY: the AES-256 key (32 bytes, base64) sealing account secrets. Secret. */
  readonly accountsEncryptionKey: Buffer | null;
  /** ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: older keys (comma-separated), to open what they sealed. Secret. */
  readonly accountsPreviousEncryptionKeys: readonly Buffer[];
  /** How often each process re-reads the accounts even without a notification, in ms. Default 30000. */
  readonly accountsRefreshMs: number;
  /** The third-party platform (WECHAT_COMPONENT_*, all four or none); null when not configured. */
  readonly platform: PlatformConfig | null;
  /** Unacknowledged wake-ups one worker holds. Default 500. */
  readonly workerPrefetch: number;
  /** Wake-ups handled in one Postgres round-trip. Default 100. */
  readonly workerBatchSize: number;
  /** Longest wait in ms for a batch to fill while another is being handled (an idle worker waits not at all). Default 5. */
  readonly workerBatchWaitMs: number;
  /** Batches one worker handles at once; each claims only as many rows as there are free send slots. Default 4. */
  readonly workerConcurrentBatches: number;
  /**
   * Rows one worker holds in `sending` at most: a row is claimed only when a send slot is free, and keeps
   * it until its outcome is recorded. Bounds what a killed worker leaves `unknown`. At most
   * WECHAT_MAX_CONNECTIONS (a slot beyond the connections would claim a row that then waits). Default:
   * WECHAT_MAX_CONNECTIONS.
   */
  readonly workerSendConcurrency: number;
  /** A wake-up this close (ms) to its due time is handled now rather than re-delayed. Default 20. */
  readonly earlyToleranceMs: number;
  /** Send attempts before a message is `failed` and dead-lettered. Default 8. */
  readonly retryMaxAttempts: number;
  /** First retry delay in ms; doubles per attempt, with full jitter. Default 1000. */
  readonly retryBaseDelayMs: number;
  /** Longest retry delay in ms. Default 600000. */
  readonly retryMaxDelayMs: number;
  /** A row in `sending` longer than this many ms becomes `unknown` (or is resent, see atLeastOnce). Default 300000. */
  readonly sendingTimeoutMs: number;
  /** How often the relay looks for rows to (re)publish, in ms. Default 1000. */
  readonly relayIntervalMs: number;
  /**
   * An outbox entry (messages whose wake-ups were not confirmed) older than this many ms is republished by
   * the relay. Default 5000.
   */
  readonly relayPendingAfterMs: number;
  /** A `queued` row overdue by more than this many ms gets a new wake-up (lost-wake-up safety net). Default 300000. */
  readonly relayOverdueAfterMs: number;
  /** Rows per relay round. Default 500. */
  readonly relayBatchSize: number;
  /**
   * RETENTION_FINISHED_AFTER: finished messages (with their attempts), processed pushes and ledger rows
   * covering nothing open are deleted this many ms after they finished; null (`0` / `off`): kept forever.
   * Default 30 days (`30d`).
   */
  readonly retentionFinishedAfterMs: number | null;
  /** RETENTION_BATCH: rows the pruner deletes per transaction. Default 1000. */
  readonly retentionBatch: number;
  /** RETENTION_INTERVAL: how often a worker tries to prune, in ms (`60s`). Default 60000. */
  readonly retentionIntervalMs: number;
  /** Largest webhook push body in bytes (413 above). Default 262144. */
  readonly webhookBodyLimitBytes: number;
  /** A push whose timestamp is further than this from our clock (seconds) is refused. Default 300. */
  readonly webhookMaxSkewS: number;
  /** pino log level. Default info. */
  readonly logLevel: string;
}

/**
 * Reads and validates the configuration. The only reader of `process.env`; pure otherwise.
 * Every problem is reported together in one ConfigError.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const e = parseEnv(envSchema, env);
  const problems: string[] = [];
  if (e.RETRY_MAX_DELAY_MS < e.RETRY_BASE_DELAY_MS) {
    problems.push('RETRY_MAX_DELAY_MS: must not be below RETRY_BASE_DELAY_MS');
  }
  if ((e.WORKER_SEND_CONCURRENCY ?? 0) > e.WECHAT_MAX_CONNECTIONS) {
    problems.push('WORKER_SEND_CONCURRENCY: must not be above WECHAT_MAX_CONNECTIONS');
  }
  // Node refuses a server whose headers timeout outlives its request timeout.
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not be above HTTP_REQUEST_TIMEOUT_MS');
  }
  if (e.ROLE !== 'worker' && e.OPS_PORT !== 0 && e.OPS_PORT === e.HTTP_PORT) {
    problems.push('OPS_PORT: must differ from HTTP_PORT (the ops routes stay off the public port)');
  }
  // Renamed: failing loudly beats a worker silently moving its health port to the default.
  if (env.WORKER_HTTP_PORT !== undefined && env.WORKER_HTTP_PORT !== '') {
    problems.push(
      'WORKER_HTTP_PORT: replaced by OPS_PORT, the ops listener every role now has (/healthz, /readyz, /metrics); rename it',
    );
  }
  const platform = platformConfig(e, e.ACCOUNTS_ENCRYPTION_KEY !== undefined, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    role: e.ROLE,
    httpHost: e.HTTP_HOST,
    httpPort: e.HTTP_PORT,
    opsHost: e.OPS_HOST,
    opsPort: e.OPS_PORT,
    httpRequestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    httpHeadersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    httpKeepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    httpMaxConnections: e.HTTP_MAX_CONNECTIONS,
    httpBodyLimitBytes: e.HTTP_BODY_LIMIT_BYTES,
    adminToken: e.ADMIN_TOKEN,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    rabbitmqUrls: Object.freeze(e.RABBITMQ_URL),
    delayMode: e.DELAY_MODE,
    brokerPrefix: e.BROKER_PREFIX,
    levelsUnitMs: e.LEVELS_UNIT_MS,
    levelsCount: e.LEVELS_COUNT,
    pluginMaxDelayMs: e.PLUGIN_MAX_DELAY_MS,
    maxScheduleAheadDays: e.MAX_SCHEDULE_AHEAD_DAYS,
    publishTimeoutMs: e.PUBLISH_TIMEOUT_MS,
    wechatApiBaseUrl: e.WECHAT_API_BASE_URL.replace(/\/+$/, ''),
    wechatTimeoutMs: e.WECHAT_TIMEOUT_MS,
    wechatMaxConnections: e.WECHAT_MAX_CONNECTIONS,
    tokenRefreshMarginMs: e.TOKEN_REFRESH_MARGIN_MS,
    bootstrapAccounts: Object.freeze(e.WECHAT_ACCOUNTS.map((a) => Object.freeze(a))),
    accountsEncryptionKey: e.ACCOUNTS_ENCRYPTION_KEY ?? null,
    accountsPreviousEncryptionKeys: Object.freeze(e.ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS),
    accountsRefreshMs: e.ACCOUNTS_REFRESH_MS,
    platform,
    workerPrefetch: e.WORKER_PREFETCH,
    workerBatchSize: e.WORKER_BATCH_SIZE,
    workerBatchWaitMs: e.WORKER_BATCH_WAIT_MS,
    workerConcurrentBatches: e.WORKER_CONCURRENT_BATCHES,
    workerSendConcurrency: e.WORKER_SEND_CONCURRENCY ?? e.WECHAT_MAX_CONNECTIONS,
    earlyToleranceMs: e.EARLY_TOLERANCE_MS,
    retryMaxAttempts: e.RETRY_MAX_ATTEMPTS,
    retryBaseDelayMs: e.RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: e.RETRY_MAX_DELAY_MS,
    sendingTimeoutMs: e.SENDING_TIMEOUT_MS,
    relayIntervalMs: e.RELAY_INTERVAL_MS,
    relayPendingAfterMs: e.RELAY_PENDING_AFTER_MS,
    relayOverdueAfterMs: e.RELAY_OVERDUE_AFTER_MS,
    relayBatchSize: e.RELAY_BATCH_SIZE,
    retentionFinishedAfterMs: e.RETENTION_FINISHED_AFTER,
    retentionBatch: e.RETENTION_BATCH,
    retentionIntervalMs: e.RETENTION_INTERVAL,
    webhookBodyLimitBytes: e.WEBHOOK_BODY_LIMIT_BYTES,
    webhookMaxSkewS: e.WEBHOOK_MAX_SKEW_S,
    logLevel: e.LOG_LEVEL,
  });
}

/** The little `npm run migrate` needs: it must work before accounts or tokens are configured. */
export function loadMigrateConfig(env: Record<string, string | undefined> = process.env): {
  readonly databaseUrl: string;
  readonly logLevel: string;
} {
  const e = parseEnv(envSchema.pick({ DATABASE_URL: true, LOG_LEVEL: true }), env);
  return Object.freeze({ databaseUrl: e.DATABASE_URL, logLevel: e.LOG_LEVEL });
}

/** What `npm run rotate-account-keys` needs: the database and the account keys. */
export function loadAccountKeysConfig(env: Record<string, string | undefined> = process.env): {
  readonly databaseUrl: string;
  readonly logLevel: string;
  readonly accountsEncryptionKey: Buffer | null;
  readonly accountsPreviousEncryptionKeys: readonly Buffer[];
} {
  const e = parseEnv(
    envSchema.pick({
      DATABASE_URL: true,
      LOG_LEVEL: true,
      ACCOUNTS_ENCRYPTION_KEY: true,
      ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: true,
    }),
    env,
  );
  return Object.freeze({
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    accountsEncryptionKey: e.ACCOUNTS_ENCRYPTION_KEY ?? null,
    accountsPreviousEncryptionKeys: e.ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS,
  });
}
