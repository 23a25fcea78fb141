import { Router } from 'express';
import type { Metrics } from '../metrics';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, { ok: boolean; detail?: string }>;
}

/**
 * `/healthz` (the process is alive), `/readyz` (Postgres, migrations, RabbitMQ, transport; 503 with the
 * failing check when not ready) and `/metrics` (Prometheus text format). Served by the api, and by the
 * worker on WORKER_HTTP_PORT.
 */
export function healthRoutes(deps: { readiness: () => Promise<Readiness>; metrics: Metrics }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const readiness = await deps.readiness();
    res.status(readiness.ready ? 200 : 503).json(readiness);
  });
  router.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return router;
}
