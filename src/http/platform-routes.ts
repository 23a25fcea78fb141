import express, { Router } from 'express';
import { type ConnectDeps, completeAuthorization, startAuthorization } from '../accounts/connect-account';
import { type AccountConnected, type AuthorizationStarted, authorizationStartSchema } from '../contract';
import { ValidationError } from '../errors';
import { parseBody } from './account-routes';
import { queryParam } from './push-request';

/** `POST /v1/platform/authorizations` (behind the bearer token): a pre-auth code and the authorization link. */
export function createPlatformV1Router(deps: ConnectDeps, bodyLimitBytes: number): Router {
  const router = Router();
  router.post('/authorizations', express.json({ limit: bodyLimitBytes }), async (req, res) => {
    const { redirectUri } = parseBody(authorizationStartSchema, req.body);
    const started: AuthorizationStarted = await startAuthorization(deps, redirectUri);
    res.status(201).json(started);
  });
  return router;
}

/**
 * `GET /wechat/platform/callback?auth_code=…`: where WeChat sends the admin's browser after they
 * authorized; exchanges the code and creates (or re-enables) the account. Public: the code is the proof,
 * good once.
 */
export function createPlatformCallbackRouter(deps: ConnectDeps): Router {
  const router = Router();
  router.get('/platform/callback', async (req, res) => {
    const authCode = queryParam(req, 'auth_code');
    if (authCode === undefined || authCode === '' || authCode.length > 512) {
      throw new ValidationError('auth_code is required', [{ path: 'auth_code', message: 'is required' }]);
    }
    const { appId, outcome, permissions } = await completeAuthorization(deps, authCode);
    const connected: AccountConnected = { appId, outcome, permissions: [...permissions] };
    res.json(connected);
  });
  return router;
}
