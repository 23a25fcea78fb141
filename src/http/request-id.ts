import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

const HEADER = 'x-request-id';
const ACCEPTED = /^[A-Za-z0-9._:-]{1,64}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** The caller's X-Request-Id when well-formed, else a new one; echoed in the answer. */
    requestId: string;
  }
}

/** The request's id (the caller's, when sane, else a new one), set in the answer's `X-Request-Id`. */
export function giveRequestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers[HEADER];
  const id = typeof given === 'string' && ACCEPTED.test(given) ? given : randomUUID();
  res.setHeader(HEADER, id);
  return id;
}

/** Gives every request an id (the caller's, when sane) and returns it in `X-Request-Id`. */
export const requestId: RequestHandler = (req, res, next) => {
  req.requestId = giveRequestId(req, res);
  next();
};
