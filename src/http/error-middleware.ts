import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, TooManyRequestsError, UnavailableError } from '../errors';
import { isTransientDbError } from '../db/errors';
import type { Logger } from '../logger';
import type { ErrorBody } from '../contract';
import { loggableError } from '../loggable-error';

/**
 * The JSON shape of every error answer: `{ error: { code, message, details?, requestId? } }`. A 4xx says
 * what was wrong. A 5xx says nothing of the inside (its message may name key ids, variables, hosts): a
 * 503 keeps its code (`database_unavailable`…: the client may retry) with a fixed message, any other 5xx
 * is `internal`; both carry the request id (also the X-Request-Id header) that finds the detail in the log.
 */
export function errorBody(err: AppError, requestId?: string): ErrorBody {
  const withId = requestId === undefined ? {} : { requestId };
  if (err.httpStatus === 503) {
    return { error: { code: err.code, message: 'temporarily unavailable; try again shortly', ...withId } };
  }
  if (err.httpStatus >= 500) return { error: { code: 'internal', message: 'internal error', ...withId } };
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined ? { details: err.details } : {}),
    },
  };
}

/** Seconds a client is told to wait (Retry-After) when a dependency is unavailable or the service is overloaded. */
export const RETRY_AFTER_S = 1;

/** What a failed request is answered, for the log: its path and id. */
interface Failed {
  readonly path: string;
  readonly requestId: string | undefined;
}

/**
 * Translates body-parser errors (malformed JSON → 400, too large → 413, wrong charset → 415), an
 * unreachable Postgres (503 `database_unavailable`, nothing written: the client may retry) and AppErrors
 * into the AppError answered; anything else is a 500 whose detail goes to the log, not the client.
 */
export function answeredError(err: unknown, logger: Logger, req: Failed): AppError {
  const parserError = err as { type?: string; status?: number; limit?: number };
  let appError: AppError;
  if (err instanceof AppError) appError = err;
  else if (parserError.type === 'entity.parse.failed') {
    appError = new AppError('malformed_json', 'the request body is not valid JSON', { httpStatus: 400 });
  } else if (parserError.type === 'entity.too.large') {
    appError = new AppError('body_too_large', `the request body exceeds ${parserError.limit} bytes`, {
      httpStatus: 413,
    });
  } else if (parserError.status && parserError.status >= 400 && parserError.status < 500) {
    appError = new AppError('bad_request', (err as Error).message, { httpStatus: parserError.status });
  } else if (isTransientDbError(err)) {
    appError = new UnavailableError(
      'database_unavailable',
      'the database is unavailable; try again shortly',
      err,
    );
  } else {
    logger.error(
      { err: loggableError(err, { stack: true }), path: req.path, requestId: req.requestId },
      'unhandled error',
    );
    appError = new AppError('internal', 'internal error');
  }
  if (appError.httpStatus >= 500) {
    logger.error(
      { code: appError.code, err: loggableError(appError), path: req.path, requestId: req.requestId },
      'request failed',
    );
  }
  return appError;
}

/** The headers an error answer adds to the JSON ones: when to retry. */
export function errorHeaders(appError: AppError): Record<string, string> {
  if (appError.httpStatus === 503) return { 'Retry-After': String(RETRY_AFTER_S) };
  if (appError instanceof TooManyRequestsError) return { 'Retry-After': String(appError.retryAfterS) };
  return {};
}

/** Answers every error of the express apps (`answeredError`), as JSON (`errorBody`). */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const appError = answeredError(err, logger, req);
    res.set(errorHeaders(appError));
    res.status(appError.httpStatus).json(errorBody(appError, req.requestId));
  };
}

export const notFound: RequestHandler = (req, res) => {
  const body: ErrorBody = { error: { code: 'not_found', message: `no route ${req.method} ${req.path}` } };
  res.status(404).json(body);
};
