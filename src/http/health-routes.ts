import { Router } from 'express';
import type { Metrics } from '../metrics';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Record<string, { ok: boolean; detail?: string }>;
}

/**
 * The public port's health routes: `/healthz` (the process is alive) and `/readyz`, which answers only
 * `{"ready":true}` or 503 `{"ready":false}`. Versions, error texts and the check list stay on the ops
 * listener (opsRoutes), which does not face the internet.
 */
export function publicHealthRoutes(deps: { readiness: () => Promise<Readiness> }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready } = await deps.readiness();
    res.status(ready ? 200 : 503).json({ ready });
  });
  return router;
}

/**
 * The ops listener's routes (OPS_HOST:OPS_PORT, every role): `/healthz`, `/readyz` with every check and
 * its detail (503 with the failing check when not ready), and `/metrics` (Prometheus text format).
 */
export function opsRoutes(deps: { readiness: () => Promise<Readiness>; metrics: Metrics }): Router {
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
