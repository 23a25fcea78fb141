import type { RequestHandler } from 'express';

/**
 * The headers of a page the service serves to browsers. Only the service's own files may run or style it,
 * and it may only talk to its own origin: no inline script, no eval, no third-party code. `imgSrc` says
 * where its images may come from. Always revalidated (ETag): a new build shows up on the next load, with
 * no stale mix of old and new files.
 */
export function pageHeaders(imgSrc: string): RequestHandler {
  const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${imgSrc}`,
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': contentSecurityPolicy,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
    next();
  };
}
