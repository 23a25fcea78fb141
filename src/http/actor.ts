import type { Request } from 'express';
import type { Actor } from '../store/audit-log';

/** The address a request came from: the socket's (`trust proxy` is off, so no X-Forwarded-For). */
export const sourceOf = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * Who makes the request's changes, for the audit log: the credential the guard accepted — today the admin
 * token, the only one — and the address the request came from.
 */
export function actorOf(req: Request): Actor {
  return {
    actor: { kind: 'admin_token' },
    source: sourceOf(req),
    requestId: req.requestId ?? null,
  };
}
