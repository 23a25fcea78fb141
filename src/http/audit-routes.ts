import { Router } from 'express';
import { AUDIT_PAGE_DEFAULT, auditQuerySchema, type AuditList } from '../contract';
import type { Pool } from '../db/pool';
import { listChanges } from '../store/audit-log';
import { parseInput } from '../validation';

/**
 * `GET /v1/audit`: who changed what through the API — sequences and accounts — newest first, one account's
 * (`appId`) or all, a page at a time (`limit`, `before` = the previous page's `next`).
 */
export function createAuditRouter(deps: { pool: Pool }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const query = parseInput(auditQuerySchema, req.query, 'invalid query', { prefix: 'query' });
    const page: AuditList = await listChanges(deps.pool, {
      appId: query.appId ?? null,
      limit: query.limit ?? AUDIT_PAGE_DEFAULT,
      before: query.before ?? null,
    });
    res.json(page);
  });
  return router;
}
