import express, { Router, type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pageHeaders } from './page-headers';

/**
 * Where `npm run build` puts the app: `dist/admin`, next to `dist/http` when this file runs compiled;
 * from `src/http` (ts-jest, tests start the service from src) the same folder is two levels up.
 */
const CANDIDATE_ROOTS = [path.join(__dirname, '../admin'), path.join(__dirname, '../../dist/admin')];

function findRoot(candidates: readonly string[]): string | null {
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? null;
}

/** Where the api process mounts the admin app. */
export const ADMIN_PATH = '/admin';

/** The admin page's images may come from https too: news-card pictures in the preview. */
const securityHeaders = pageHeaders("'self' data: https:");

/**
 * Serves the built admin web app (mounted at /admin): its static files, and index.html for any other
 * GET path without an extension, so deep links such as /admin/sequences/<id> load the app, which then
 * routes in the browser. A missing asset stays a 404. `root` overrides where the build is looked for.
 */
export function createAdminRouter(opts: { root?: string } = {}): Router {
  const router = Router();
  const candidates = opts.root ? [opts.root] : CANDIDATE_ROOTS;
  // Looked up again until found, so a build made after start-up is picked up without a restart.
  let root: string | null = null;
  let serveStatic: RequestHandler | null = null;
  const currentRoot = () => {
    if (root === null && (root = findRoot(candidates)) !== null) {
      serveStatic = express.static(root, { cacheControl: false, index: 'index.html', redirect: false });
    }
    return root;
  };

  router.use(securityHeaders);
  router.use((req, res, next) => {
    // `/admin` → `/admin/`, so that the page's relative URLs resolve under the mount point.
    const [pathname, search = ''] = req.originalUrl.split('?');
    if (req.path === '/' && !pathname.endsWith('/')) {
      res.redirect(308, `${req.baseUrl}/${search ? `?${search}` : ''}`);
      return;
    }
    next();
  });
  router.use((req, res, next) => {
    if (currentRoot() !== null && serveStatic) {
      serveStatic(req, res, next);
      return;
    }
    res
      .status(503)
      .type('text/plain; charset=utf-8')
      .send('The admin app is not built: run `npm run build` (it compiles admin/ into dist/admin).');
  });
  router.use((req, res, next) => {
    const dir = currentRoot();
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path.extname(req.path) !== '' || !dir) {
      next();
      return;
    }
    res.sendFile(path.join(dir, 'index.html'), { cacheControl: false });
  });
  return router;
}
