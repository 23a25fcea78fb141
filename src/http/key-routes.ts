import { Router } from 'express';
import { createKey, listAllKeys, revokeApiKey } from '../access/manage-keys';
import { createKeyRequestSchema, type KeyList } from '../contract';
import { parseInput } from '../validation';
import { actorOf } from './actor';
import { jsonBody } from './json-body';
import { uuidParam } from './uuid-param';
import type { V1Deps } from './v1-deps';

/**
 * `/v1/keys…` (the admin token only): API keys for integrations. `POST` answers the key itself, the only
 * time it is shown; lists show its name, scope and last four characters; `DELETE` revokes it.
 */
export function createKeyRouter(deps: V1Deps): Router {
  const router = Router();
  const keyDeps = { pool: deps.pool, refreshKeys: () => deps.keys.refresh() };

  router.get('/', async (_req, res) => {
    res.json({ keys: await listAllKeys(keyDeps) } satisfies KeyList);
  });

  router.post('/', async (req, res) => {
    const request = parseInput(createKeyRequestSchema, jsonBody(req.body), 'invalid key');
    res.status(201).json(await createKey(keyDeps, request, actorOf(req)));
  });

  router.delete('/:id', async (req, res) => {
    res.json(await revokeApiKey(keyDeps, uuidParam(req.params.id, 'key'), actorOf(req)));
  });

  return router;
}
