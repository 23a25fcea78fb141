import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { TooManyRequestsError, UnauthorizedError } from '../errors';
import { sourceOf } from './actor';
import { createRateLimiter, type RateLimiter } from './rate-limit';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Failed bearer tokens a source address may send per minute (and at once) before it is answered 429. */
export const AUTH_FAILURES_PER_MINUTE = 20;

/** The failed bearer tokens of each source address, in this process (one for every guarded router). */
export const createAuthFailures = (): RateLimiter =>
  createRateLimiter({ perMinute: AUTH_FAILURES_PER_MINUTE });

/** Whether an `Authorization` header holds `Bearer <expected>`, compared in constant time (digests). */
export function createBearerCheck(expected: string): (header: string | undefined) => boolean {
  const want = digest(expected);
  return (header) => {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]), want);
  };
}

/**
 * `Authorization: Bearer <token>`, compared in constant time (digests, so lengths do not leak either).
 * Each refused token costs its source address (the socket's: `trust proxy` is off) one of
 * `AUTH_FAILURES_PER_MINUTE`; an address with none left is answered 429 with Retry-After, whatever
 * token it sends, until one comes back. Accepted tokens cost nothing.
 */
export function requireBearer(expected: string, failures: RateLimiter): RequestHandler {
  const accepts = createBearerCheck(expected);
  return (req, _res, next) => {
    const source = sourceOf(req);
    const blocked = failures.blocked(source);
    if (blocked) {
      next(new TooManyRequestsError('too many failed bearer tokens from this address', blocked.retryAfterS));
      return;
    }
    if (!accepts(req.get('authorization'))) {
      failures.take(source);
      next(new UnauthorizedError());
      return;
    }
    next();
  };
}
