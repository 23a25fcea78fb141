import express, { Router, type Request, type Response } from 'express';
import { type ConnectDeps, startAuthorization } from '../accounts/connect-account';
import { exchangeAuthorizationCode } from '../accounts/exchange-code';
import {
  type AccountConnected,
  type AuthorizationStarted,
  authorizationStartSchema,
  type PlatformView,
} from '../contract';
import { AppError, ValidationError } from '../errors';
import { parseBody } from './account-routes';
import { ADMIN_PATH } from './admin-routes';
import { queryParam } from './push-request';
import { loggableError } from '../loggable-error';

/** The callback's path under /wechat; `GET /v1/platform` gives it whole. */
const CALLBACK_PATH = '/platform/callback';

/**
 * `/v1/platform` (behind the bearer token): `GET` says whether the platform is configured (the admin page
 * offers "Connect an official account" when it is); `POST /authorizations`, only then, gives a pre-auth
 * code and the authorization link.
 */
export function createPlatformV1Router(deps: ConnectDeps | null, bodyLimitBytes: number): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const view: PlatformView = {
      configured: deps !== null,
      callbackPath: deps === null ? null : `/wechat${CALLBACK_PATH}`,
    };
    res.json(view);
  });
  if (deps === null) return router;
  router.post('/authorizations', express.json({ limit: bodyLimitBytes }), async (req, res) => {
    const { redirectUri } = parseBody(authorizationStartSchema, req.body);
    const started: AuthorizationStarted = await startAuthorization(deps, redirectUri);
    res.status(201).json(started);
  });
  return router;
}

/** A browser (it prefers HTML) is sent to the admin page; an API caller (JSON, or no Accept) gets JSON. */
const isBrowser = (req: Request): boolean => req.accepts(['json', 'html']) === 'html';

/**
 * `GET /wechat/platform/callback?auth_code=…`: where WeChat sends the admin's browser after they
 * authorized; exchanges the code and creates (or re-enables) the account, or, when the code's
 * `authorized` push exchanged it first, answers that exchange's outcome (so does the same code again).
 * Public: the code is the proof. A browser is redirected (303) to the account on the admin page with the
 * outcome, or, when the code is refused, to the Accounts page with the error's code (the page says it
 * in words).
 */
export function createPlatformCallbackRouter(deps: ConnectDeps): Router {
  const router = Router();
  router.get(CALLBACK_PATH, async (req, res) => {
    let connected: AccountConnected;
    try {
      connected = await connect(deps, queryParam(req, 'auth_code'));
    } catch (err) {
      if (!isBrowser(req)) throw err;
      redirectWithError(deps, req, res, err);
      return;
    }
    if (isBrowser(req)) {
      const account = `${ADMIN_PATH}/accounts/${encodeURIComponent(connected.appId)}`;
      res.redirect(303, `${account}?connected=${connected.outcome}`);
    } else {
      res.json(connected);
    }
  });
  return router;
}

async function connect(deps: ConnectDeps, authCode: string | undefined): Promise<AccountConnected> {
  if (authCode === undefined || authCode === '' || authCode.length > 512) {
    throw new ValidationError('auth_code is required', [{ path: 'auth_code', message: 'is required' }]);
  }
  const { appId, outcome, permissions } = await exchangeAuthorizationCode(deps, authCode, 'callback');
  return { appId, outcome, permissions: [...permissions] };
}

/** The browser's side of the error middleware: the same log line for a failure, then a redirect. */
function redirectWithError(deps: ConnectDeps, req: Request, res: Response, err: unknown): void {
  const code = err instanceof AppError ? err.code : 'internal';
  if (!(err instanceof AppError) || err.httpStatus >= 500) {
    deps.logger.error({ code, err: loggableError(err), requestId: req.requestId }, 'request failed');
  }
  res.redirect(303, `${ADMIN_PATH}/accounts?connect_error=${encodeURIComponent(code)}`);
}
