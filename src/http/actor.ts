import type { Request } from 'express';
import type { Actor } from '../store/audit-log';

/**
 * Who makes the request's changes, for the audit log: the credential the guard accepted — today the admin
 * token, the only one — and the address the request came from (the socket's: `trust proxy` is off).
 */
export function actorOf(req: Request): Actor {
  return {
    actor: { kind: 'admin_token' },
    source: req.ip ?? req.socket.remoteAddress ?? 'unknown',
    requestId: req.requestId ?? null,
  };
}
