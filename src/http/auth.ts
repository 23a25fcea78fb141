import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { TooManyRequestsError, UnauthorizedError, UnavailableError } from '../errors';
import type { KeyRegistry } from '../access/key-registry';
import { isKeyShaped } from '../access/key-token';
import { ADMIN_PRINCIPAL, type Principal } from '../access/principal';
import { sourceOf } from './actor';
import { createRateLimiter, type RateLimiter } from './rate-limit';

declare module 'express-serve-static-core' {
  interface Request {
    /** Who the request acts for, set by `requireBearer` on every guarded route. */
    principal: Principal;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Failed bearer tokens a source address may send per minute (and at once) before it is answered 429. */
export const AUTH_FAILURES_PER_MINUTE = 20;

/** The failed bearer tokens of each source address, in this process (one for every guarded router). */
export const createAuthFailures = (): RateLimiter =>
  createRateLimiter({ perMinute: AUTH_FAILURES_PER_MINUTE });

/**
 * Who an `Authorization` header names, or null: `Bearer <ADMIN_TOKEN>` (compared in constant time, as
 * digests, so lengths do not leak either) or `Bearer <an API key>` (looked up by digest in this process's
 * keys). A key-shaped token while the keys could not be read yet is a 503: it may well be a good key.
 */
export type Authenticate = (header: string | undefined) => Principal | null;

export function createAuthenticate(
  adminToken: string,
  keys: Pick<KeyRegistry, 'find' | 'isLoaded'>,
): Authenticate {
  const admin = digest(adminToken);
  return (header) => {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (match === null) return null;
    const token = match[1];
    if (timingSafeEqual(digest(token), admin)) return ADMIN_PRINCIPAL;
    if (!isKeyShaped(token)) return null;
    if (!keys.isLoaded()) throw new UnavailableError('database_unavailable', 'api keys not read yet');
    const key = keys.find(token);
    return key ? { kind: 'key', key } : null;
  };
}

/**
 * A bearer credential (`createAuthenticate`), whose principal the request then carries. Each refused token
 * costs its source address (the socket's: `trust proxy` is off) one of `AUTH_FAILURES_PER_MINUTE`; an
 * address with none left is answered 429 with Retry-After, whatever token it sends, until one comes back.
 * Accepted tokens cost nothing.
 */
export function requireBearer(authenticate: Authenticate, failures: RateLimiter): RequestHandler {
  return (req, _res, next) => {
    const source = sourceOf(req);
    const blocked = failures.blocked(source);
    if (blocked) {
      next(new TooManyRequestsError('too many failed bearer tokens from this address', blocked.retryAfterS));
      return;
    }
    let principal: Principal | null;
    try {
      principal = authenticate(req.get('authorization'));
    } catch (err) {
      next(err);
      return;
    }
    if (principal === null) {
      failures.take(source);
      next(new UnauthorizedError());
      return;
    }
    req.principal = principal;
    next();
  };
}
