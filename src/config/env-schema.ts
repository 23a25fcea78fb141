import { z } from 'zod';
import { LOG_LEVELS } from '../env';
import { parseKey } from '../accounts/secret-box';
import { accountsSchema } from './accounts';
import { platformEnvSchema } from './platform';
import { duration, durationOrOff } from './duration';

/** DELAY_MODE's values: how wake-ups are delayed (see Config.delayMode). */
export const DELAY_MODES = ['auto', 'plugin', 'levels'] as const;
export type DelayMode = (typeof DELAY_MODES)[number];

/** ROLE's values: which parts a process runs (see Config.role). */
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** A whole number within [min, max], `def` when unset. */
const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

/** Adds an issue (which never quotes the key) when `text` is not a 32-byte base64 key. */
function checkKey(text: string, ctx: z.RefinementCtx, which: string): Buffer {
  const key = parseKey(text);
  if (typeof key === 'string') ctx.addIssue({ code: 'custom', message: `${which} ${key}` });
  return typeof key === 'string' ? Buffer.alloc(0) : key;
}
const encryptionKey = z.string().transform((text, ctx) => checkKey(text, ctx, 'the key'));

/**
 * RABBITMQ_URL: one amqp(s) URL, or several comma-separated (the nodes of a cluster, tried in turn). An
 * issue names the entry by position, never by text: a URL carries the broker's password.
 */
function parseBrokerUrls(text: string, ctx: z.RefinementCtx): string[] {
  const urls = text.split(',').map((u) => u.trim());
  urls.forEach((url, i) => {
    if (!URL.canParse(url) || !/^amqps?:$/.test(new URL(url).protocol)) {
      const which = urls.length > 1 ? `entry ${i + 1}` : 'the value';
      ctx.addIssue({ code: 'custom', message: `${which} is not an amqp:// or amqps:// URL` });
    }
  });
  return urls;
}

/**
 * Every environment variable of the service, with its bounds and default; `loadConfig` maps the result
 * onto `Config` (where each field is documented).
 */
export const envSchema = z.object({
  ROLE: z.enum(ROLES).default('all'),
  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_PORT: int(3000, 0, 65535),
  OPS_HOST: z.string().min(1).default('127.0.0.1'),
  OPS_PORT: int(3001, 0, 65535),
  HTTP_REQUEST_TIMEOUT_MS: int(30_000, 100, 3_600_000),
  HTTP_HEADERS_TIMEOUT_MS: int(10_000, 100, 3_600_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(5_000, 0, 3_600_000),
  HTTP_MAX_CONNECTIONS: int(1000, 1, 1_000_000),
  HTTP_BODY_LIMIT_BYTES: int(65536, 1024),
  ADMIN_TOKEN: z.string({ error: 'is required' }).min(16, 'must be at least 16 characters'),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/wechat_drip'),
  DATABASE_POOL_SIZE: int(10, 1, 1000),
  RABBITMQ_URL: z
    .string()
    .default('amqp://guest:guest@127.0.0.1:5672')
    .transform((text, ctx) => parseBrokerUrls(text, ctx)),
  DELAY_MODE: z.enum(DELAY_MODES).default('auto'),
  BROKER_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*(\.[a-z0-9_-]+)*$/, 'lowercase letters, digits, - _ and dots')
    .default('wechat-drip'),
  LEVELS_UNIT_MS: int(100, 10, 60000),
  LEVELS_COUNT: int(26, 4, 40),
  PLUGIN_MAX_DELAY_MS: int(86_400_000, 1000, 4_294_967_295),
  MAX_SCHEDULE_AHEAD_DAYS: int(400, 1, 3650),
  PUBLISH_TIMEOUT_MS: int(10000, 100),
  WECHAT_API_BASE_URL: z.string().url().default('https://api.weixin.qq.com'),
  WECHAT_TIMEOUT_MS: int(10000, 100),
  WECHAT_MAX_CONNECTIONS: int(64, 1, 4096),
  TOKEN_REFRESH_MARGIN_MS: int(240000, 0),
  WECHAT_ACCOUNTS: accountsSchema,
  ...platformEnvSchema,
  ACCOUNTS_ENCRYPTION_KEY: encryptionKey.optional(),
  ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: z
    .string()
    .transform((text, ctx) =>
      text
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '')
        .map((k, i) => checkKey(k, ctx, `key ${i + 1}`)),
    )
    .default([]),
  ACCOUNTS_REFRESH_MS: int(30_000, 100, 3_600_000),
  WORKER_PREFETCH: int(500, 1, 2000),
  WORKER_BATCH_SIZE: int(100, 1, 1000),
  WORKER_BATCH_WAIT_MS: int(5, 0, 1000),
  WORKER_CONCURRENT_BATCHES: int(4, 1, 100),
  WORKER_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(4096).optional(),
  EARLY_TOLERANCE_MS: int(20, 0, 10000),
  RETRY_MAX_ATTEMPTS: int(8, 1, 100),
  RETRY_BASE_DELAY_MS: int(1000, 1),
  RETRY_MAX_DELAY_MS: int(600000, 1),
  SENDING_TIMEOUT_MS: int(300000, 1000),
  RELAY_INTERVAL_MS: int(1000, 10),
  RELAY_PENDING_AFTER_MS: int(5000, 0),
  RELAY_OVERDUE_AFTER_MS: int(300000, 1000),
  RELAY_BATCH_SIZE: int(500, 1, 10000),
  RETENTION_FINISHED_AFTER: durationOrOff('30d', 1000),
  RETENTION_BATCH: int(1000, 1, 100_000),
  RETENTION_INTERVAL: duration('60s', 100),
  WEBHOOK_BODY_LIMIT_BYTES: int(262144, 1024),
  WEBHOOK_MAX_SKEW_S: int(300, 1),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});
