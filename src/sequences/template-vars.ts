import type { IssueDetail } from '../validation';

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

/** Fields whose string is a web address: a value there must not move it to another origin. */
const WEB_URL_KEYS: ReadonlySet<string> = new Set(['url', 'picurl', 'musicurl', 'hqmusicurl', 'page']);
/** Fields whose string is a mini program page path (`pages/item?id=…`). */
const PATH_KEYS: ReadonlySet<string> = new Set(['pagepath']);
/** A link's address inside a customer-service text: `<a href="…">`, `<a data-miniprogram-path="…">`. */
const TEXT_LINK = /\b(href|data-miniprogram-path)="([^"]*)"/g;
/** A URL whose origin (scheme://host[:port]) is written out before its first variable. */
const ORIGIN_CLOSED = /^[a-z][a-z0-9+.-]*:\/\/[^/?#{}]+[/?#]/i;

type Encode = (value: string) => string;
const asWritten: Encode = (value) => value;
/** In a text, a value's `<` and `>` become full-width: a value cannot become WeChat markup (`<a href>`). */
const asText: Encode = (value) => value.replace(/</g, '＜').replace(/>/g, '＞');

/**
 * The payload with its variables filled in, and the names that had neither a value nor a default. In an
 * address (a URL field, a mini program path, a text link's `href`) a value is percent-encoded
 * (encodeURIComponent) so it cannot add a host, a path or a query parameter of its own; and a web
 * address whose origin a value would still change (a variable inside the host, which a saved sequence
 * cannot have) is filled with the values left out. A default is the marketer's own text, kept as written.
 */
export function renderVars<T>(
  payload: T,
  vars: Readonly<Record<string, string>>,
  opts: { asText: boolean },
): { rendered: T; missing: string[] } {
  const missing = new Set<string>();
  const fill = (text: string, encode: Encode) =>
    text.replace(PLACEHOLDER, (whole, name: string, fallback: string | undefined) => {
      if (Object.hasOwn(vars, name)) return encode(vars[name]);
      if (fallback === undefined) missing.add(name);
      return fallback ?? whole;
    });
  const fillUrl = (template: string) => {
    const rendered = fill(template, encodeURIComponent);
    const bare = fill(template, () => '');
    return originOf(rendered) === originOf(bare) ? rendered : bare;
  };
  const rendered = visitStrings(payload, (text, keys) => {
    const key = keys[keys.length - 1];
    if (WEB_URL_KEYS.has(key)) return fillUrl(text);
    if (PATH_KEYS.has(key)) return fill(text, encodeURIComponent);
    if (!opts.asText) return fill(text, asWritten);
    const linked = text.replace(
      TEXT_LINK,
      (_, attr: string, address: string) =>
        `${attr}="${attr === 'href' ? fillUrl(address) : fill(address, encodeURIComponent)}"`,
    );
    return fill(linked, asText);
  }) as T;
  return { rendered, missing: [...missing] };
}

/**
 * Each web address of the payload (a URL field, a text link's `href`) with a variable before its origin
 * (scheme://host[:port]) is written out: `https://shop.example{{path}}`, `{{link}}`. A value could move
 * such a link to another site, so a saved sequence may not have one; `path` prefixes each issue's path.
 */
export function urlVariableIssues(payload: unknown, path: string): IssueDetail[] {
  const issues: IssueDetail[] = [];
  const check = (address: string, at: string[]) => {
    const first = address.search(PLACEHOLDER_START);
    if (first >= 0 && !ORIGIN_CLOSED.test(address.slice(0, first))) {
      issues.push({
        path: [path, ...at].join('.'),
        message:
          'a variable may not be part of a link’s origin (scheme and host): write the origin out, then the variable after the first “/”',
        rule: { kind: 'variable_in_origin' },
      });
    }
  };
  visitStrings(payload, (text, keys) => {
    if (WEB_URL_KEYS.has(keys[keys.length - 1])) check(text, keys);
    else for (const m of text.matchAll(TEXT_LINK)) if (m[1] === 'href') check(m[2], keys);
    return text;
  });
  return issues;
}

/** Where a variable starts: the first `{{` that is one. */
const PLACEHOLDER_START = new RegExp(PLACEHOLDER.source);

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function visitStrings(
  value: unknown,
  fn: (text: string, keys: string[]) => string,
  keys: string[] = [],
): unknown {
  if (typeof value === 'string') return fn(value, keys);
  if (Array.isArray(value)) return value.map((v, i) => visitStrings(v, fn, [...keys, String(i)]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visitStrings(v, fn, [...keys, k])]));
  }
  return value;
}
