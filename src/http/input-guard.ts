import { unescape as decodeLeniently } from 'node:querystring';
import type { Request, RequestHandler, Router } from 'express';
import { ValidationError } from '../errors';
import type { IssueDetail } from '../validation';

/**
 * Keys refused anywhere in a body. JSON.parse keeps them as own properties, but `z.record` and object
 * spreads treat `__proto__` specially (zod drops it silently), so a field could vanish between what the
 * client sent and what is stored; `constructor` and `prototype` are refused with it as their siblings.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** A hostile body may hold thousands of bad strings; the answer names the first few. */
const MAX_ISSUES = 20;
const NUL = '\u0000';
// Without the `u` flag the pattern sees UTF-16 code units, so it finds unpaired halves of a pair.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a piece of text cannot be stored, or null when it can. */
function textProblem(s: string): string | null {
  // Postgres refuses \u0000 in text and jsonb, and a lone surrogate in jsonb: refused here, named, as a 400.
  if (s.includes(NUL)) return 'must not contain a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'must be valid Unicode text (it holds a lone UTF-16 surrogate)';
  return null;
}

/** A character that may make text unstorable: most text holds none, and is storable at a glance. */
// eslint-disable-next-line no-control-regex
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
/** Nesting checked by recursion at most; a deeper value is left to the iterative walk. */
const MAX_QUICK_DEPTH = 32;

/**
 * Whether `value` has nothing `findInputIssues` would report, found without building its paths: a string
 * with no suspect character is storable, one with a paired surrogate too. False also when it is nested
 * deeper than MAX_QUICK_DEPTH (the walk decides).
 */
function hasNoIssues(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return !SUSPECT.test(value) || textProblem(value) === null;
  if (typeof value !== 'object' || value === null) return true;
  if (depth > MAX_QUICK_DEPTH) return false;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (FORBIDDEN_KEYS.has(key) || !hasNoIssues(key, depth)) return false;
    if (!hasNoIssues(object[key], depth + 1)) return false;
  }
  return true;
}

/** A key as it can appear in a path: the unstorable characters escaped. */
function printable(key: string): string {
  // eslint-disable-next-line no-control-regex
  return key.replace(/\u0000|[\uD800-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface InputIssue extends IssueDetail {
  readonly code: 'invalid_text' | 'forbidden_key';
}

/** One step of the walk: a value to look into, or a field name to check. */
type WalkItem =
  | { readonly kind: 'value'; readonly value: unknown; readonly path: string }
  | { readonly kind: 'key'; readonly key: string; readonly path: string };

/**
 * Every string (values and field names) under `value` that Postgres cannot store, and every forbidden
 * field name, in document order, with dot-joined paths under `prefix`. Iterative, so a deeply nested body
 * cannot overflow the stack; stops after MAX_ISSUES.
 */
export function findInputIssues(value: unknown, prefix: string): InputIssue[] {
  // Nearly every input has no issue; the walk, which names them, costs more than the input's JSON.parse.
  return hasNoIssues(value, 0) ? [] : walkInputIssues(value, prefix);
}

/** `findInputIssues` without the quick look first (exported for the test that compares the two). */
export function walkInputIssues(value: unknown, prefix: string): InputIssue[] {
  const issues: InputIssue[] = [];
  const stack: WalkItem[] = [{ kind: 'value', value, path: prefix }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const item = stack.pop()!;
    const path = item.path || '(root)';
    if (item.kind === 'key') {
      const problem = FORBIDDEN_KEYS.has(item.key) ? null : textProblem(item.key);
      if (FORBIDDEN_KEYS.has(item.key)) {
        issues.push({ code: 'forbidden_key', path, message: 'is a reserved property name, not allowed' });
      } else if (problem) {
        issues.push({ code: 'invalid_text', path, message: `is a field name that ${problem}` });
      }
    } else if (typeof item.value === 'string') {
      const problem = textProblem(item.value);
      if (problem) issues.push({ code: 'invalid_text', path, message: problem });
    } else if (typeof item.value === 'object' && item.value !== null) {
      const object = item.value as Record<string, unknown>;
      // Pushed last-first, each field's name before its value, so that problems come out in document order.
      for (const key of Object.keys(object).reverse()) {
        const at = item.path === '' ? printable(key) : `${item.path}.${printable(key)}`;
        if (!FORBIDDEN_KEYS.has(key)) stack.push({ kind: 'value', value: object[key], path: at });
        stack.push({ kind: 'key', key, path: at });
      }
    }
  }
  return issues;
}

/** A 400 ValidationError listing `issues` (the first few), with the first one's code. */
function inputError(issues: readonly InputIssue[]): ValidationError {
  return new ValidationError(
    'the request holds text that cannot be stored, or a reserved field name',
    issues
      .slice(0, MAX_ISSUES)
      .map(({ code, path, message }): IssueDetail => ({ path, message, rule: { kind: code } })),
    issues[0].code,
  );
}

/**
 * A 400 ValidationError (code `invalid_text` or `forbidden_key`, the first problem's) listing the problems
 * of each named part, e.g. `{ body: req.body, line: parsed }`, or null when there are none. The body's
 * paths carry no prefix (they read like the schemas' paths, `message.text.content`); the other parts'
 * paths start with the part's name (`params.cancelKey`).
 */
export function unstorableInputError(parts: Readonly<Record<string, unknown>>): ValidationError | null {
  const issues = Object.entries(parts).flatMap(([part, value]) =>
    findInputIssues(value, part === 'body' ? '' : part),
  );
  return issues.length === 0 ? null : inputError(issues);
}

/**
 * A URL carries text as percent-encoded UTF-8. Bytes that are not UTF-8 (`%ED%A0%80`, what a sloppy client
 * sends for a lone surrogate, or a cut-off sequence) decode to no text at all: express answers such a path
 * segment with a 400 that names no field, and its query parser turns them into U+FFFD silently.
 */
function decodes(raw: string): boolean {
  try {
    decodeURIComponent(raw);
    return true;
  } catch {
    return false;
  }
}

const NOT_UTF8 = 'is not valid percent-encoded UTF-8 (a lone surrogate, or a broken byte sequence)';
/** Path segments that did not decode, as the router will see them after `guardPathEncoding`. */
const UNDECODABLE = Symbol('undecodable path segments');
type WithUndecodable = Request & { [UNDECODABLE]?: Set<string> };

/** Query parameters whose raw name or value does not decode, by (leniently decoded) name. */
function queryEncodingIssues(req: Request): InputIssue[] {
  const at = req.originalUrl.indexOf('?');
  if (at < 0) return [];
  return req.originalUrl
    .slice(at + 1)
    .split('&')
    .map((pair) => pair.replace(/\+/g, ' ').split('='))
    .filter(([name, ...value]) => !decodes(name) || !decodes(value.join('=')))
    .map(([name]) => ({
      code: 'invalid_text',
      path: `query.${printable(decodeLeniently(name))}`,
      message: NOT_UTF8,
    }));
}

/**
 * Refuses a request whose body or query holds text Postgres cannot store, a reserved field name, or a query
 * value that is not UTF-8.
 */
export const guardBodyAndQuery: RequestHandler = (req, _res, next) => {
  const issues = [
    ...queryEncodingIssues(req),
    ...findInputIssues(req.body, ''),
    ...findInputIssues(req.query, 'query'),
  ];
  next(issues.length > 0 ? inputError(issues) : undefined);
};

/**
 * Lets a path segment that is not UTF-8 reach the route it belongs to, so that `guardPathParams` can refuse
 * it naming its parameter: such a segment is replaced by its lenient decoding (U+FFFD for the bad bytes),
 * re-encoded, and remembered. Mount before the routes.
 */
export const guardPathEncoding: RequestHandler = (req, _res, next) => {
  const at = req.url.indexOf('?');
  const [path, query] = at < 0 ? [req.url, ''] : [req.url.slice(0, at), req.url.slice(at)];
  const segments = path.split('/');
  if (segments.every(decodes)) return next();
  const undecodable = new Set<string>();
  req.url =
    segments
      .map((segment) => {
        if (decodes(segment)) return segment;
        const lenient = decodeLeniently(segment);
        undecodable.add(lenient);
        return encodeURIComponent(lenient);
      })
      .join('/') + query;
  (req as WithUndecodable)[UNDECODABLE] = undecodable;
  next();
};

/**
 * Refuses a request to `router` whose path parameters `names` hold text Postgres cannot store or bytes that
 * are not UTF-8, before any handler runs (express knows a route's parameters only once it matched, hence
 * `router.param`).
 */
export function guardPathParams(router: Router, names: readonly string[]): void {
  for (const name of names) {
    router.param(name, (req, _res, next, value: unknown) => {
      const path = `params.${name}`;
      if (typeof value === 'string' && (req as WithUndecodable)[UNDECODABLE]?.has(value)) {
        return next(inputError([{ code: 'invalid_text', path, message: NOT_UTF8 }]));
      }
      next(unstorableInputError({ params: { [name]: value } }) ?? undefined);
    });
  }
}
