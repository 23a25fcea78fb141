import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** `Authorization: Bearer <token>`, compared in constant time (digests, so lengths do not leak either). */
export function requireBearer(expected: string): RequestHandler {
  const want = digest(expected);
  return (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]), want)) {
      next(new UnauthorizedError());
      return;
    }
    next();
  };
}
