import express, { type Express } from 'express';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { errorMiddleware, notFound } from './error-middleware';
import { opsRoutes, type Readiness } from './health-routes';
import { noSniff } from './no-sniff';

/**
 * The ops listener's app, in every role: `/healthz`, the detailed `/readyz` and `/metrics`. It binds
 * OPS_HOST:OPS_PORT (loopback by default), apart from the public port the webhook needs.
 */
export function createOpsApp(deps: {
  readiness: () => Promise<Readiness>;
  metrics: Metrics;
  logger: Logger;
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(noSniff);
  app.use(opsRoutes(deps));
  app.use(notFound);
  app.use(errorMiddleware(deps.logger));
  return app;
}
