import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const HEADER = 'x-request-id';
const ACCEPTED = /^[A-Za-z0-9._:-]{1,64}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** The caller's X-Request-Id when well-formed, else a new one; echoed in the answer. */
    requestId: string;
  }
}

/** Gives every request an id (the caller's, when sane) and returns it in `X-Request-Id`. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get(HEADER);
  req.requestId = given && ACCEPTED.test(given) ? given : randomUUID();
  res.setHeader(HEADER, req.requestId);
  next();
};
