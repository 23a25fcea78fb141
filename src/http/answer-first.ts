import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** Answers a request itself (true), or leaves it untouched for the app (false). */
export type QuickRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

const QUICK_ROUTE = Symbol('answered before express');
type WithQuickRoute = Express & { [QUICK_ROUTE]?: QuickRoute };

/** Has `listen` offer each request of `app` to `route` first: what it does not take goes to `app`. */
export function answerFirst(app: Express, route: QuickRoute): Express {
  (app as WithQuickRoute)[QUICK_ROUTE] = route;
  return app;
}

/** `app` as a request listener, after its quick route when it has one (`answerFirst`). */
export function requestListenerOf(app: Express): RequestListener {
  const route = (app as WithQuickRoute)[QUICK_ROUTE];
  if (!route) return app;
  return (req, res) => {
    if (!route(req, res)) app(req, res);
  };
}
