import type { Request, RequestHandler } from 'express';
import type { KeyOperation } from '../contract';
import { ForbiddenError } from '../errors';
import { mayUseAccount, type Principal } from '../access/principal';

/**
 * The routes an API key may call, with the operations each needs (docs/api.md "API keys"). Every other
 * guarded route takes the admin token only: a key is answered 403 there.
 */
const KEY_ROUTES: readonly { method: string; path: RegExp; needs: readonly KeyOperation[] }[] = [
  { method: 'POST', path: /^\/v1\/messages$/, needs: ['schedule'] },
  { method: 'POST', path: /^\/v1\/messages\/batch$/, needs: ['schedule'] },
  { method: 'GET', path: /^\/v1\/messages\/[^/]+$/, needs: ['read'] },
  { method: 'DELETE', path: /^\/v1\/messages\/[^/]+$/, needs: ['cancel'] },
  // A reschedule cancels the old message and schedules its replacement.
  { method: 'PUT', path: /^\/v1\/messages\/(by-key\/[^/]+\/[^/]+|[^/]+)$/, needs: ['schedule', 'cancel'] },
  { method: 'POST', path: /^\/v1\/cancellations$/, needs: ['cancel'] },
  { method: 'POST', path: /^\/v1\/sequences\/[^/]+\/enrollments(\/batch)?$/, needs: ['schedule'] },
  { method: 'POST', path: /^\/v1\/followers\/[^/]+\/[^/]+\/events$/, needs: ['schedule'] },
  { method: 'GET', path: /^\/v1\/followers\/[^/]+\/[^/]+$/, needs: ['read'] },
];

/** Why `principal` may not call `method path`, or null when it may. The admin token may call everything. */
export function keyRefusal(principal: Principal, method: string, path: string): ForbiddenError | null {
  if (principal.kind !== 'key') return null;
  const asMethod = method === 'HEAD' ? 'GET' : method;
  const route = KEY_ROUTES.find((r) => r.method === asMethod && r.path.test(path));
  if (!route) return new ForbiddenError('API keys may not call this route; it takes the admin token');
  const missing = route.needs.filter((op) => !principal.key.operations.has(op));
  return missing.length === 0
    ? null
    : new ForbiddenError(
        `this API key may not ${missing.join(' or ')} (its operations: ${[...principal.key.operations].join(', ')})`,
      );
}

/** After `requireBearer`: an API key only on its routes, with the operations they need. */
export const limitKeys: RequestHandler = (req, _res, next) => {
  next(keyRefusal(req.principal, req.method, req.baseUrl + req.path) ?? undefined);
};

/** Whether the request's credential may use account `appId` (one it may not is, to it, not there). */
export const usesAccount = (req: Request, appId: string): boolean => mayUseAccount(req.principal, appId);

/** For a key, the test of the accounts it may use; undefined for the admin token, which may use them all. */
export const visibleAccounts = (req: Request): ((appId: string) => boolean) | undefined => {
  const p = req.principal;
  return p.kind === 'key' ? (appId) => mayUseAccount(p, appId) : undefined;
};
