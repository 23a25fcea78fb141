import { ConfigError } from './errors';
import { envSchema, FIELDS, type SettingFields } from './config/env-schema';
import { parseEnv } from './env';
import { type PlatformConfig, platformConfig } from './config/platform';

/** How many partitions of the message table PUBLISH_HORIZON may span: each one ahead is kept ready. */
const MAX_PARTITIONS_AHEAD = 48;

// The types of Config's fields, where the rest of the service has always imported them from.
export type { PushMode, WechatAccount } from './config/accounts';
export type { DelayMode, Role } from './config/env-schema';
export type { PlatformConfig } from './config/platform';

/**
 * The service's configuration: one field per variable of src/config/settings-*.ts (where each is
 * declared, documented and given its default, once), plus the fields built from several.
 */
export type Config = Omit<SettingFields, 'workerSendConcurrency'> & {
  /** WORKER_SEND_CONCURRENCY, or WECHAT_MAX_CONNECTIONS when unset. */
  readonly workerSendConcurrency: number;
  /** The third-party platform (WECHAT_COMPONENT_*, all four or none); null when not configured. */
  readonly platform: PlatformConfig | null;
};

/** Arrays (and the objects in them) frozen like the config itself; a Buffer is left as it is. */
function frozen(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return Object.freeze(
    value.map((v: unknown) =>
      typeof v === 'object' && v !== null && !Buffer.isBuffer(v) ? Object.freeze(v) : v,
    ),
  );
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
  // The day partitions a process keeps ready ahead (src/store/message-partitions.ts) must stay few.
  if (e.PUBLISH_HORIZON / e.MESSAGE_PARTITION > MAX_PARTITIONS_AHEAD) {
    problems.push(
      `PUBLISH_HORIZON: must not span more than ${MAX_PARTITIONS_AHEAD} partitions of MESSAGE_PARTITION`,
    );
  }
  // Renamed: failing loudly beats a worker silently moving its health port to the default.
  if (env.WORKER_HTTP_PORT !== undefined && env.WORKER_HTTP_PORT !== '') {
    problems.push(
      'WORKER_HTTP_PORT: replaced by OPS_PORT, the ops listener every role now has (/healthz, /readyz, /metrics); rename it',
    );
  }
  const platform = platformConfig(e, e.ACCOUNTS_ENCRYPTION_KEY !== null, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const fields = Object.fromEntries(FIELDS.map(([name, field]) => [field, frozen(e[name])]));
  return Object.freeze({
    ...(fields as Omit<SettingFields, 'workerSendConcurrency'>),
    workerSendConcurrency: e.WORKER_SEND_CONCURRENCY ?? e.WECHAT_MAX_CONNECTIONS,
    platform,
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
    accountsEncryptionKey: e.ACCOUNTS_ENCRYPTION_KEY,
    accountsPreviousEncryptionKeys: e.ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS,
  });
}
