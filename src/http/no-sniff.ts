import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/** Sets `X-Content-Type-Options: nosniff` (see `noSniff`). */
export function setNoSniff(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/**
 * `X-Content-Type-Options: nosniff` on every response, set before any route runs so that errors, 404s,
 * static files and webhook answers carry it too: a browser must not guess HTML or script out of a JSON or
 * text answer that echoes client input.
 */
export const noSniff: RequestHandler = (_req, res, next) => {
  setNoSniff(res);
  next();
};
