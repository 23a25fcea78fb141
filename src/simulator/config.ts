import { z } from 'zod';
import { jsonEnv, LOG_LEVELS, parseEnv } from '../env';
import { ConfigError } from '../errors';
import type { Logger } from '../logger';
import type { SimComponent } from './open-platform';
import { windowPolicySchema, type WindowPolicySpec } from './window-policy';

/** How the account's pushes are protected, as configured on the WeChat platform (明文 / 兼容 / 安全). */
export type SimPushMode = 'plaintext' | 'compatible' | 'safe';
/** The data format of the account's pushes. */
export type SimPushFormat = 'xml' | 'json';

/** One account the simulator knows: tokens are issued only for these AppID / AppSecret pairs. */
export interface SimulatorAccount {
  readonly appId: string;
  /**
   * Set for an account that authorized the simulated third-party platform: its pushes go to
   * `/wechat/platform/{appId}`, always safe mode, encrypted with the component's token and key and this
   * (the component's) app id inside the ciphertext (reference/wechat-platform.md §0.4).
   */
  readonly viaComponent?: string;
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
  /**
   * Whether the account has the publish APIs (freepublish/*); default true. False plays a personal or
   * unverified account since 2025-07: `mpnewsarticle` customer-service sends answer 48001. Set by
   * `POST /__sim/accounts` only: WECHAT_ACCOUNTS is the service's, which has no such field.
   */
  readonly publishApis?: boolean;
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
  /**
   * The third-party platform whose Open Platform the simulator plays, from the service's own four
   * `WECHAT_COMPONENT_*` variables (all or none); null without them.
   */
  readonly component: SimComponent | null;
  /** How often a component_verify_ticket is pushed, in ms. `SIM_TICKET_INTERVAL_MS`, default 600000. */
  readonly ticketIntervalMs: number;
  /** pino log level. `LOG_LEVEL`, default info. */
  readonly logLevel: string;
}

/** Options of `createSimulator`. */
export interface SimulatorOptions {
  readonly accounts: readonly SimulatorAccount[];
  /** Lifetime of issued tokens in seconds; default 7200. */
  readonly tokenTtlSeconds?: number;
  readonly logger: Logger;
  /**
   * Whether follower checks apply: the contact window (45015 / 45047) and the subscription (45015, and
   * 43004 for templates). Default true; tests that never push interactions turn it off.
   */
  readonly enforceContactWindow?: boolean;
  /** Where pushes go: `{webhookBaseUrl}/wechat/{appId}`. Default http://127.0.0.1:3000. */
  readonly webhookBaseUrl?: string;
  /** Clock in epoch ms for token lifetimes, dedup and receivedAt; tests move it. Default Date.now. */
  readonly now?: () => number;
  /** The third-party platform whose Open Platform this simulator also plays; none by default. */
  readonly component?: SimComponent;
  /** How often the Open Platform pushes a component_verify_ticket, in ms. Default 600000 (WeChat's). */
  readonly ticketIntervalMs?: number;
}

export const accountSchema = z
  // Not strict: the simulator shares WECHAT_ACCOUNTS with the service, which has more fields. Also the
  // body of POST /__sim/accounts (account-registration.ts).
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
    publishApis: z.boolean().default(true),
  })
  .refine((a) => a.pushMode === 'plaintext' || a.encodingAESKey !== undefined, {
    message: 'pushMode compatible and safe need an encodingAESKey',
    path: ['encodingAESKey'],
  });

// Optional: accounts created through the service's API are registered with POST /__sim/accounts.
const accountsSchema = jsonEnv(
  z
    .array(accountSchema)
    .refine((a) => new Set(a.map((x) => x.appId)).size === a.length, 'appIds must be unique'),
  'must be a JSON array of {"appId","secret"}',
)
  .optional()
  .transform((a) => a ?? []);

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
  WECHAT_COMPONENT_APP_ID: z.string().min(1).optional(),
  WECHAT_COMPONENT_SECRET: z.string().min(1).optional(),
  WECHAT_COMPONENT_TOKEN: z.string().min(1).optional(),
  WECHAT_COMPONENT_ENCODING_AES_KEY: z
    .string()
    .regex(/^[A-Za-z0-9]{43}$/, 'must be 43 letters or digits')
    .optional(),
  SIM_TICKET_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(600_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});

/** The platform when all four WECHAT_COMPONENT_* are set, null when none is; throws for some. */
function componentOf(e: z.output<typeof envSchema>): SimComponent | null {
  const c = {
    componentAppId: e.WECHAT_COMPONENT_APP_ID,
    secret: e.WECHAT_COMPONENT_SECRET,
    token: e.WECHAT_COMPONENT_TOKEN,
    encodingAESKey: e.WECHAT_COMPONENT_ENCODING_AES_KEY,
  };
  const given = Object.values(c).filter((v) => v !== undefined).length;
  if (given === 0) return null;
  if (given < 4) throw new ConfigError(['WECHAT_COMPONENT_*: set all four or none']);
  return Object.freeze(c as SimComponent);
}

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
    component: componentOf(e),
    ticketIntervalMs: e.SIM_TICKET_INTERVAL_MS,
    logLevel: e.LOG_LEVEL,
  });
}
