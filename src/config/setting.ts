import { z } from 'zod';

/**
 * One environment variable, declared once: how its text is checked and turned into a value (its default
 * included, as `.prefault('…')`, written as one would set it), the Config field it fills, and what
 * docs/configuration.md and .env.example say about it (both generated: `npm run docs:config`).
 */
export interface Setting<S extends z.ZodType = z.ZodType, K extends string | null = string | null> {
  /** The Config field it fills; null when loadConfig builds a field from several (the platform). */
  readonly key: K;
  readonly schema: S;
  /** What it does, in one sentence (Markdown: code spans, links relative to docs/). */
  readonly doc: string;
  /** The unit of a number (`ms`, `s`, `bytes`, …), shown beside the default. */
  readonly unit?: string;
  /** Never logged, never shown; .env.example gives no value but a placeholder. */
  readonly secret?: boolean;
  /** The value .env.example sets (for `make run`); without it the default is shown commented out. */
  readonly example?: string;
  /** What the docs show as the default when it is not one fixed value. */
  readonly defaultNote?: string;
}

/** A variable read by another program of the repository (the simulator, `make run`): documented here. */
export interface OtherSetting {
  readonly doc: string;
  readonly readBy: string;
  readonly default?: string;
  readonly unit?: string;
  readonly example?: string;
}

/** One section of docs/configuration.md and of .env.example. */
export interface SettingGroup<T extends Record<string, Setting> = Record<string, Setting>> {
  readonly title: string;
  /** Said before the section's variables, in the docs and in .env.example. */
  readonly note?: string;
  readonly settings: T;
}

/** What a setting says besides its field, schema and sentence. */
type SettingMeta = Pick<Setting, 'unit' | 'secret' | 'example' | 'defaultNote'>;

/** One setting, before its sentence: the Config field it fills, its schema (default included), the rest. */
export const setting = <S extends z.ZodType, const K extends string | null>(
  key: K,
  schema: S,
  meta: SettingMeta = {},
): Omit<Setting<S, K>, 'doc'> => ({ key, schema, ...meta });

/**
 * A section of settings, each given its sentence from `docs` (kept apart so that each declaration stays
 * one line; the type wants a sentence for every setting, and none for a setting that does not exist).
 */
export function group<T extends Record<string, Omit<Setting, 'doc'>>>(
  title: string,
  settings: T,
  docs: { readonly [N in keyof T]: string },
  note?: string,
): SettingGroup<{ readonly [N in keyof T]: T[N] & { readonly doc: string } }> {
  const documented = Object.fromEntries(
    Object.entries(settings).map(([name, s]) => [name, { ...s, doc: docs[name as keyof T] }]),
  ) as { readonly [N in keyof T]: T[N] & { readonly doc: string } };
  return { title, ...(note === undefined ? {} : { note }), settings: documented };
}

/** A whole number within [min, max]. */
export const int = (min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

/** The default as written (`3000`, `30d`), or undefined for a variable without one. */
export function defaultOf(schema: z.ZodType): string | undefined {
  const def = schema._zod.def as { type: string; defaultValue?: unknown };
  return def.type === 'prefault' ? String(def.defaultValue) : undefined;
}

/** True when the variable must be set (no default, and unset is not allowed). */
export const isRequired = (schema: z.ZodType): boolean => !schema.safeParse(undefined).success;
