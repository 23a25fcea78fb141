/**
 * The application's error classes. Driver, broker and WeChat errors are translated into these at the
 * boundary module that talks to them; everything above only sees an AppError.
 */
export class AppError extends Error {
  /** Machine-readable code, stable across releases (also the JSON `error.code` of HTTP answers). */
  readonly code: string;
  /** The HTTP status the error maps to when it reaches the API surface. */
  readonly httpStatus: number;
  /** Whether the same operation may succeed if tried again later. */
  readonly retryable: boolean;
  /** Extra detail for the caller (validation issues, conflicting ids); never secrets. */
  readonly details?: unknown;

  constructor(
    code: string,
    message: string,
    opts: { httpStatus?: number; retryable?: boolean; details?: unknown; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.httpStatus = opts.httpStatus ?? 500;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }
}

/**
 * Input that does not satisfy the contract; `details` lists every problem. `code` is `validation_error`
 * unless a more precise one helps the caller (`invalid_text`: text Postgres cannot store).
 */
export class ValidationError extends AppError {
  constructor(message: string, details?: unknown, code = 'validation_error') {
    super(code, message, { httpStatus: 400, details });
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super('not_found', `${what} not found`, { httpStatus: 404 });
  }
}

/** The request is valid but conflicts with the current state (e.g. cancelling a message already sent). */
export class ConflictError extends AppError {
  constructor(code: string, message: string, details?: unknown) {
    super(code, message, { httpStatus: 409, details });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or invalid bearer token') {
    super('unauthorized', message, { httpStatus: 401 });
  }
}

/** A credential that is valid but may not do this (an API key outside its operations or routes). */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', message, { httpStatus: 403 });
  }
}

/** Too many requests of one kind from one source: try again after `retryAfterS` (the Retry-After header). */
export class TooManyRequestsError extends AppError {
  readonly retryAfterS: number;
  constructor(message: string, retryAfterS: number) {
    super('too_many_requests', message, { httpStatus: 429, retryable: true });
    this.retryAfterS = retryAfterS;
  }
}

/** A dependency (Postgres, RabbitMQ, WeChat) is unavailable; the operation may succeed later. */
export class UnavailableError extends AppError {
  constructor(code: string, message: string, cause?: unknown) {
    super(code, message, { httpStatus: 503, retryable: true, cause });
  }
}

/** Configuration problems, all of them at once. */
export class ConfigError extends AppError {
  constructor(problems: string[]) {
    super('config_error', `invalid configuration:\n  - ${problems.join('\n  - ')}`, { details: problems });
  }
}
