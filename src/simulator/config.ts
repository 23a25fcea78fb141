import { z } from 'zod';
import { jsonEnv, LOG_LEVELS, parseEnv } from '../env';
import { ConfigError } from '../errors';
import { windowPolicySchema, type WindowPolicySpec } from './window-policy';

/** How the account's pushes are protected, as configured on the WeChat platform (明文 / 兼容 / 安全). */
export type SimPushMode = 'plaintext' | 'compatible' | 'safe';
/** The data format of the account's pushes. */
export type SimPushFormat = 'xml' | 'json';

/** One account the simulator knows: tokens are issued only for these AppID / AppSecret pairs. */
export interface SimulatorAccount {
  readonly appId: string;
  /** Secret: never logged. */
  readonly secret: string;
  /** The push Token that signs pushes to the webhook; pushes are refused without it. Secret. */
  readonly token?: string;
  /** The 43-character EncodingAESKey; required for `compatible` and `safe`. Secret. */
  readonly encodingAESKey?: string;
  /** Default `plaintext`. */
  readonly pushMode?: SimPushMode;
  /** Default `xml` (from `SIM_PUSH_FORMATS` when loaded from the environment). */
  readonly pushFormat?: SimPushFormat;
  /** The contact-window rules the simulator enforces for this account; default `official`. */
  readonly windowPolicy?: WindowPolicySpec;
}

/** The simulator's configuration (its own, separate from the service's `loadConfig`). */
export interface SimulatorConfig {
  /** Port to listen on. `SIM_PORT`, default 4100 (0 picks a free port). */
  readonly port: number;
  /** Interface to bind. `SIM_HOST`, default 127.0.0.1. */
  readonly host: string;
  /**
   * The accounts, from `WECHAT_ACCOUNTS` (the service's own JSON; fields it does not know are ignored),
   * each with its push data format from `SIM_PUSH_FORMATS` (appId → `xml` | `json`, default xml).
   */
  readonly accounts: readonly SimulatorAccount[];
  /** Lifetime of an issued access token in seconds. `SIM_TOKEN_TTL_S`, default 7200 (WeChat's). */
  readonly tokenTtlSeconds: number;
  /** Where pushes go: `{webhookBaseUrl}/wechat/{appId}`. `SIM_WEBHOOK_URL`, default http://127.0.0.1:3000. */
  readonly webhookBaseUrl: string;
  /** Whether follower checks (window, count, subscription) apply. `SIM_ENFORCE_WINDOW`, default true. */
  readonly enforceContactWindow: boolean;
  /** pino log level. `LOG_LEVEL`, default info. */
  readonly logLevel: string;
}

const accountSchema = z
  // Not strict: the simulator shares WECHAT_ACCOUNTS with the service, which has more fields.
  .object({
    appId: z.string().min(1, 'appId is required'),
    secret: z.string().min(1),
    token: z.string().min(1).optional(),
    encodingAESKey: z
      .string()
      .regex(/^[A-Za-z0-9]{43}$/, 'encodingAESKey must be 43 letters or digits')
      .optional(),
    pushMode: z.enum(['plaintext', 'compatible', 'safe']).default('plaintext'),
    // The service refuses the field it does not know; point a configuration written before the move here.
    pushFormat: z
      .undefined({ error: 'is no longer an account field: set it in SIM_PUSH_FORMATS' })
      .optional(),
    windowPolicy: windowPolicySchema.default('official'),
  })
  .refine((a) => a.pushMode === 'plaintext' || a.encodingAESKey !== undefined, {
    message: 'pushMode compatible and safe need an encodingAESKey',
    path: ['encodingAESKey'],
  });

const accountsSchema = jsonEnv(
  z
    .array(accountSchema)
    .min(1, 'must list at least one account')
    .refine((a) => new Set(a.map((x) => x.appId)).size === a.length, 'appIds must be unique'),
  'is required (a JSON array of {"appId","secret"})',
);

const envSchema = z.object({
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4100),
  SIM_HOST: z.string().min(1).default('127.0.0.1'),
  WECHAT_ACCOUNTS: accountsSchema,
  SIM_TOKEN_TTL_S: z.coerce.number().int().min(1).max(86400).default(7200),
  SIM_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3000'),
  SIM_PUSH_FORMATS: jsonEnv(
    z.record(z.string(), z.enum(['xml', 'json'])),
    'must be a JSON object of appId → "xml" or "json"',
  ).default({}),
  SIM_ENFORCE_WINDOW: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});

/** Reads the simulator's settings from `env`; every problem is reported together in one ConfigError. */
export function loadSimulatorConfig(env: Record<string, string | undefined> = process.env): SimulatorConfig {
  const e = parseEnv(envSchema, env);
  const appIds = new Set(e.WECHAT_ACCOUNTS.map((a) => a.appId));
  const strangers = Object.keys(e.SIM_PUSH_FORMATS).filter((appId) => !appIds.has(appId));
  if (strangers.length > 0) {
    throw new ConfigError([`SIM_PUSH_FORMATS: ${strangers.join(', ')} not in WECHAT_ACCOUNTS`]);
  }
  return Object.freeze({
    port: e.SIM_PORT,
    host: e.SIM_HOST,
    accounts: Object.freeze(
      e.WECHAT_ACCOUNTS.map((a) =>
        Object.freeze({
          appId: a.appId,
          secret: a.secret,
          ...(a.token === undefined ? {} : { token: a.token }),
          ...(a.encodingAESKey === undefined ? {} : { encodingAESKey: a.encodingAESKey }),
          pushMode: a.pushMode,
          pushFormat: e.SIM_PUSH_FORMATS[a.appId] ?? 'xml',
          windowPolicy: a.windowPolicy,
        }),
      ),
    ),
    tokenTtlSeconds: e.SIM_TOKEN_TTL_S,
    webhookBaseUrl: e.SIM_WEBHOOK_URL.replace(/\/+$/, ''),
    enforceContactWindow: e.SIM_ENFORCE_WINDOW,
    logLevel: e.LOG_LEVEL,
  });
}
