import { z } from 'zod';
import { ConfigError } from './errors';

/**
 * Validates environment variables against `schema`, treating empty values as unset, and reports every
 * problem together in one ConfigError. Shared by the service's and the simulator's configuration.
 */
export function parseEnv<T extends z.ZodType>(
  schema: T,
  env: Record<string, string | undefined>,
): z.output<T> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(env)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** A variable holding JSON: parsed, then validated by `inner`. */
export function jsonEnv<T extends z.ZodType>(inner: T, required: string) {
  return z
    .string({ error: required })
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(inner);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
