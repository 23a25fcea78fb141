import { z } from 'zod';
import { jsonEnv, LOG_LEVELS, parseEnv } from '../env';

/** One account the simulator knows: tokens are issued only for these AppID / AppSecret pairs. */
export interface SimulatorAccount {
  readonly appId: string;
  /** Secret: never logged. */
  readonly secret: string;
}

/** The simulator's configuration (its own, separate from the service's `loadConfig`). */
export interface SimulatorConfig {
  /** Port to listen on. `SIM_PORT`, default 4100 (0 picks a free port). */
  readonly port: number;
  /** Interface to bind. `SIM_HOST`, default 127.0.0.1. */
  readonly host: string;
  /** The accounts, from `WECHAT_ACCOUNTS` (the service's own JSON; extra fields are ignored). Required. */
  readonly accounts: readonly SimulatorAccount[];
  /** Lifetime of an issued access token in seconds. `SIM_TOKEN_TTL_S`, default 7200 (WeChat's). */
  readonly tokenTtlSeconds: number;
  /** pino log level. `LOG_LEVEL`, default info. */
  readonly logLevel: string;
}

const accountsSchema = jsonEnv(
  z
    // Not strict: the simulator shares WECHAT_ACCOUNTS with the service, which has more fields.
    .array(z.object({ appId: z.string().min(1, 'appId is required'), secret: z.string().min(1) }))
    .min(1, 'must list at least one account')
    .refine((a) => new Set(a.map((x) => x.appId)).size === a.length, 'appIds must be unique'),
  'is required (a JSON array of {"appId","secret"})',
);

const envSchema = z.object({
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4100),
  SIM_HOST: z.string().min(1).default('127.0.0.1'),
  WECHAT_ACCOUNTS: accountsSchema,
  SIM_TOKEN_TTL_S: z.coerce.number().int().min(1).max(86400).default(7200),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});

/** Reads the simulator's settings from `env`; every problem is reported together in one ConfigError. */
export function loadSimulatorConfig(env: Record<string, string | undefined> = process.env): SimulatorConfig {
  const e = parseEnv(envSchema, env);
  return Object.freeze({
    port: e.SIM_PORT,
    host: e.SIM_HOST,
    accounts: Object.freeze(
      e.WECHAT_ACCOUNTS.map((a) => Object.freeze({ appId: a.appId, secret: a.secret })),
    ),
    tokenTtlSeconds: e.SIM_TOKEN_TTL_S,
    logLevel: e.LOG_LEVEL,
  });
}
