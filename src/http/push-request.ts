import type { Request } from 'express';
import type { PushRequest } from '../webhook/authenticate-push';

/** A query parameter given once, as a string; undefined when absent or repeated. */
export function queryParam(req: Request, name: string): string | undefined {
  const v = req.query[name];
  return typeof v === 'string' ? v : undefined;
}

/** What the push checks read of a webhook POST (its body parsed as text). */
export function toPushRequest(req: Request): PushRequest {
  return {
    query: (name) => queryParam(req, name),
    contentType: req.get('content-type') ?? '',
    body: typeof req.body === 'string' ? req.body : '',
  };
}
