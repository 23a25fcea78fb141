import type { RequestHandler } from 'express';
import { ADMIN_PATH } from './admin-routes';

const LENIENT_PREFIXES = [`${ADMIN_PATH}/`, '/wechat/'];
import { notFound } from './error-middleware';

/**
 * One path, one route: a path ending in `/` is a 404 everywhere but under the admin page (whose app
 * lives at `/admin/`) and the webhook (`/wechat/…/`: an account's URL in WeChat's console may end in `/`,
 * and its body parser reads a push the same on either path, so it is one behaviour). Express matches `/v1/messages/batch/` to `/v1/messages/batch` unless every
 * router is strict, and the body parsers, chosen by exact path, did not: that path once read an NDJSON
 * batch as one JSON document and scheduled nothing.
 */
export const strictPaths: RequestHandler = (req, res, next) => {
  const pathname = req.originalUrl.split('?')[0];
  if (
    pathname.length > 1 &&
    pathname.endsWith('/') &&
    !LENIENT_PREFIXES.some((p) => pathname.startsWith(p))
  ) {
    notFound(req, res, next);
    return;
  }
  next();
};
