import type { z } from 'zod';

/**
 * Validates a control route's body with `schema`; the spec, or its problems as `path: message` lines for
 * the route's 400.
 */
export function parseSpec<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { spec: z.output<S> } | { problems: string[] } {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { spec: parsed.data };
  return {
    problems: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`),
  };
}

/** A setting of the control routes that applies to the next `count` sends (null: until cleared). */
export interface CountedSetting<T extends { readonly count: number | null }> {
  /** Replaces the setting; it does not merge. */
  set(spec: T): void;
  clear(): void;
  current(): T | null;
  /** The setting for one send, counted against `count`: cleared once used `count` times. */
  take(): T | null;
}

/** Creates an empty setting. */
export function createCountedSetting<T extends { readonly count: number | null }>(): CountedSetting<T> {
  let spec: T | null = null;
  let remaining: number | null = null;
  return {
    set(next) {
      spec = next;
      remaining = next.count;
    },
    clear() {
      spec = null;
      remaining = null;
    },
    current: () => spec,
    take() {
      const taken = spec;
      if (taken !== null && remaining !== null) {
        remaining -= 1;
        if (remaining <= 0) spec = null;
      }
      return taken;
    },
  };
}
