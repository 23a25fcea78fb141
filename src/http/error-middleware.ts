import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../errors';
import { loggableError } from '../db/errors';
import type { Logger } from '../logger';
import type { ErrorBody } from '../contract';

/** The JSON shape of every error answer: `{ error: { code, message, details? } }`. */
export function errorBody(err: AppError): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined ? { details: err.details } : {}),
    },
  };
}

/**
 * Translates body-parser errors (malformed JSON → 400, too large → 413, wrong charset → 415) and
 * AppErrors into JSON answers; anything else is a 500 whose detail goes to the log, not the client.
 */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
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
    } else {
      logger.error({ err: loggableError(err), path: req.path, requestId: req.requestId }, 'unhandled error');
      appError = new AppError('internal', 'internal error');
    }
    if (appError.httpStatus >= 500)
      logger.error(
        { code: appError.code, err: appError.message, requestId: req.requestId },
        'request failed',
      );
    res.status(appError.httpStatus).json(errorBody(appError));
  };
}

export const notFound: RequestHandler = (req, res) => {
  const body: ErrorBody = { error: { code: 'not_found', message: `no route ${req.method} ${req.path}` } };
  res.status(404).json(body);
};
