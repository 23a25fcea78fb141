/**
 * Variables in step texts and template / notice data: `{{name}}`, or `{{name|默认值}}` with a default used
 * when the enrollment gives no value. Only string values inside a payload are rendered, never its keys,
 * so a value can never become JSON structure; in a customer-service message `<` and `>` of a value become
 * their full-width forms, so that a value cannot become WeChat markup (`<a href>` links) either.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*(?:\|([^{}]*))?\}\}/g;

/** A variable a payload uses: its name and whether every use of it has a default. */
export interface Placeholder {
  readonly name: string;
  readonly hasDefault: boolean;
}

/** Every variable the payload's strings use, by name (a name used once without a default has none). */
export function placeholdersOf(payload: unknown): Placeholder[] {
  const found = new Map<string, boolean>();
  visitStrings(payload, (text) => {
    for (const m of text.matchAll(PLACEHOLDER)) {
      found.set(m[1], (found.get(m[1]) ?? true) && m[2] !== undefined);
    }
    return text;
  });
  return [...found].map(([name, hasDefault]) => ({ name, hasDefault }));
}

/** The payload with its variables filled in, and the names that had neither a value nor a default. */
export function renderVars<T>(
  payload: T,
  vars: Readonly<Record<string, string>>,
  opts: { asText: boolean },
): { rendered: T; missing: string[] } {
  const missing = new Set<string>();
  const rendered = visitStrings(payload, (text) =>
    text.replace(PLACEHOLDER, (whole, name: string, fallback: string | undefined) => {
      if (!Object.hasOwn(vars, name)) {
        if (fallback === undefined) missing.add(name);
        return fallback ?? whole;
      }
      // The default is the marketer's own text; a value comes from another system.
      return opts.asText ? vars[name].replace(/</g, '＜').replace(/>/g, '＞') : vars[name];
    }),
  ) as T;
  return { rendered, missing: [...missing] };
}

function visitStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => visitStrings(v, fn));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visitStrings(v, fn)]));
  }
  return value;
}
