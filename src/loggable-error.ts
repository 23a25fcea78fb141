import { DatabaseError } from 'pg';

/** An error as it may be logged: never a secret, a token, or the words of a request or a message. */
export interface LoggableError {
  /** The error's class: `AppError`, `TypeError`, `DatabaseError`, … */
  readonly type: string;
  /** Its message, scrubbed; absent for a database error, whose text can quote the request. */
  readonly message?: string;
  /** A driver's or AppError's code (`ECONNREFUSED`, `push_not_recorded`), when it has one. */
  readonly code?: string;
  /** Of a database error: what names no data, the SQLSTATE and the objects involved. */
  readonly sqlstate?: string;
  readonly routine?: string;
  readonly table?: string;
  readonly column?: string;
  readonly constraint?: string;
  /** The stack's frames, without the message line (`{ stack: true }`: an unexpected error, say). */
  readonly stack?: string;
}

/** Whatever was thrown, as an Error (a string or an object with a message keeps its words). */
export function coerceError(err: unknown): Error {
  if (err instanceof Error) return err;
  const message = (err as { message?: unknown } | null)?.message;
  return new Error(typeof message === 'string' ? message : String(err));
}

/** Each pattern of a secret in an error's text, and what it becomes. */
const SCRUBS: readonly (readonly [RegExp, string])[] = [
  // Credentials in a URL: postgres://user:password@host, amqp://guest:guest@host.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:)[^@\s]+@/gi, '$1[redacted]@'],
  // Tokens, secrets and codes in a query string or a form: access_token=…, appsecret=…, auth_code=….
  [/\b([a-z_]*(?:token|secret|ticket|password)|(?:pre_)?auth_code|code)=[^&\s"',;]+/gi, '$1=[redacted]'],
  [/\bBearer\s+\S+/gi, 'Bearer [redacted]'],
];

/** The error's text with the secrets it may carry redacted, and, of a parse error, the input it quotes. */
function scrub(err: Error): string {
  let text = err.message;
  for (const [pattern, replacement] of SCRUBS) text = text.replace(pattern, replacement);
  // JSON.parse quotes the input it could not read ("hello worl"... is not valid JSON): a body's words.
  return err.name === 'SyntaxError' ? text.replace(/"(?:[^"\\]|\\.)*"/g, '"[…]"') : text;
}

/**
 * What of `err` may be logged: the one way the code logs an error (`logger.warn({ err: loggableError(err) }, …)`).
 * A Postgres error's message, detail and `where` can quote the request's own words (the value a
 * constraint or the jsonb parser refused), so of those only the SQLSTATE and the names of the objects
 * involved are kept; any other error keeps its class, code and message, the message scrubbed of
 * credentials, tokens and quoted input.
 */
export function loggableError(err: unknown, opts: { stack?: boolean } = {}): LoggableError {
  const stack =
    opts.stack && err instanceof Error && err.stack
      ? { stack: err.stack.split('\n').slice(1).join('\n') }
      : {};
  if (err instanceof DatabaseError) {
    return {
      type: 'DatabaseError',
      sqlstate: err.code,
      routine: err.routine,
      table: err.table,
      column: err.column,
      constraint: err.constraint,
      ...stack,
    };
  }
  const e = coerceError(err);
  const code = (e as { code?: unknown }).code;
  return {
    type: e.name,
    message: scrub(e),
    ...(typeof code === 'string' ? { code } : {}),
    ...stack,
  };
}

/** `loggableError` in one line, for a command's stderr. */
export function errorText(err: unknown): string {
  const e = loggableError(err);
  if (e.message !== undefined) return e.message;
  return `database error ${e.sqlstate ?? ''}${e.table ? ` on ${e.table}` : ''}${e.constraint ? ` (${e.constraint})` : ''}`.trim();
}
