import { type Request, Router } from 'express';
import { NotFoundError, ValidationError } from '../errors';
import { followerEventRequestSchema, OPENID_PATTERN } from '../contract';
import { postFollowerEvent } from '../sequences/post-follower-event';
import { followerTimeline } from '../store/follower-timeline';
import { parseInput } from '../validation';
import { guardPathParams } from './input-guard';
import { jsonBody } from './json-body';
import type { V1Deps } from './v1-deps';
import { usesAccount } from './key-access';

/** `/v1/followers/:appId/:openid…`: what is stored about a follower, and events other systems post. */
export function createFollowerRouter(deps: V1Deps): Router {
  const router = Router();
  guardPathParams(router, ['appId', 'openid']);
  const accountOf = (req: Request): string => {
    const appId = String(req.params.appId);
    if (!deps.accounts.get(appId) || !usesAccount(req, appId)) throw new NotFoundError(`account ${appId}`);
    return appId;
  };

  router.get('/:appId/:openid', async (req, res) => {
    const appId = accountOf(req);
    res.json(await followerTimeline(deps.pool, appId, String(req.params.openid)));
  });

  router.post('/:appId/:openid/events', async (req, res) => {
    const appId = accountOf(req);
    const openid = String(req.params.openid);
    if (!OPENID_PATTERN.test(openid)) {
      throw new ValidationError('invalid event', [
        {
          path: 'params.openid',
          message: 'must be 1–128 letters, digits, _ or -',
          rule: { kind: 'format', format: 'regex' },
        },
      ]);
    }
    const parsed = parseInput(followerEventRequestSchema, jsonBody(req.body), 'invalid event');
    const { view, created } = await postFollowerEvent(deps, {
      appId,
      openid,
      name: parsed.name,
      vars: parsed.vars ?? {},
      idempotencyKey: parsed.idempotencyKey ?? null,
      requestId: req.requestId,
    });
    res.status(created ? 201 : 200).json(view);
  });

  return router;
}
