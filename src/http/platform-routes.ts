import express, { Router, type Request, type Response } from 'express';
import { type ConnectDeps, startAuthorization, takeCallbackState } from '../accounts/connect-account';
import { exchangeAuthorizationCode } from '../accounts/exchange-code';
import {
  type AccountConnected,
  type AuthorizationStarted,
  authorizationStartSchema,
  type PlatformView,
} from '../contract';
import { AppError, ConflictError, TooManyRequestsError, ValidationError } from '../errors';
import { parseBody } from './account-routes';
import { sourceOf } from './actor';
import { ADMIN_PATH } from './admin-routes';
import { queryParam } from './push-request';
import { loggableError } from '../loggable-error';
import { createRateLimiter, type RateLimiter } from './rate-limit';

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
    const started: AuthorizationStarted = await startAuthorization(deps, redirectUri).catch(
      (err: unknown) => {
        throw refusedByWechat(err);
      },
    );
    res.status(201).json(started);
  });
  return router;
}

/**
 * WeChat's lasting refusal of a pre-auth code (61004: this server is not in the platform's IP whitelist) is
 * the admin's to fix, so it is told: a 409 `wechat_refused` with the errcode, not a 500 that says nothing.
 * A passing failure stays a 503 to retry.
 */
function refusedByWechat(err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== 'token_error' || err.retryable) return err;
  const { errcode, errmsg } = (err.details ?? {}) as { errcode?: number | null; errmsg?: string };
  return new ConflictError(
    'wechat_refused',
    `WeChat refused a pre-auth code (errcode ${errcode ?? 'none'}: ${errmsg ?? err.message})`,
    { errcode: errcode ?? null },
  );
}

/** A browser (it prefers HTML) is sent to the admin page; an API caller (JSON, or no Accept) gets JSON. */
const isBrowser = (req: Request): boolean => req.accepts(['json', 'html']) === 'html';

/** Callbacks with a good state one source address may bring per minute (each may cost a WeChat call). */
export const CALLBACKS_PER_SOURCE_PER_MINUTE = 30;
/** The same, from every source together: WeChat's `api_query_auth` quota is the platform's, not ours alone. */
export const CALLBACKS_PER_MINUTE = 120;

/** The callback's limits, per process: one per source address, one for all of them. */
interface CallbackLimits {
  readonly perSource: RateLimiter;
  readonly overall: RateLimiter;
}

/**
 * `GET /wechat/platform/callback?state=…&auth_code=…`: where WeChat sends the admin's browser after they
 * authorized; exchanges the code and creates (or re-enables) the account, or, when the code's
 * `authorized` push exchanged it first, answers that exchange's outcome (so does the same code again).
 * Public, so the code alone is not trusted: it must come back with the `state` of a link this service
 * made (alive, and not used by another code), else 400 `state_invalid` without a word to WeChat; and
 * callbacks are limited per source address and overall (429 with Retry-After). A browser is redirected
 * (303) to the account on the admin page with the outcome, or, when refused, to the Accounts page with
 * the error's code (the page says it in words).
 */
export function createPlatformCallbackRouter(deps: ConnectDeps): Router {
  const limits: CallbackLimits = {
    perSource: createRateLimiter({ perMinute: CALLBACKS_PER_SOURCE_PER_MINUTE }),
    overall: createRateLimiter({ perMinute: CALLBACKS_PER_MINUTE }),
  };
  const router = Router();
  router.get(CALLBACK_PATH, async (req, res) => {
    let connected: AccountConnected;
    try {
      connected = await connect(deps, limits, req);
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

/** A query parameter as the callback takes it: null when missing, empty, or longer than any WeChat sends. */
const param = (req: Request, name: string): string | null => {
  const value = queryParam(req, name);
  return value === undefined || value === '' || value.length > 512 ? null : value;
};

async function connect(deps: ConnectDeps, limits: CallbackLimits, req: Request): Promise<AccountConnected> {
  const authCode = param(req, 'auth_code');
  if (authCode === null) {
    throw new ValidationError('auth_code is required', [
      { path: 'auth_code', message: 'is required', rule: { kind: 'required' } },
    ]);
  }
  const state = param(req, 'state');
  const source = sourceOf(req);
  const limited = limits.perSource.blocked(source) ?? limits.overall.blocked('all');
  if (limited) {
    throw new TooManyRequestsError(
      'too many authorization callbacks; try again shortly',
      limited.retryAfterS,
    );
  }
  if (state === null || !(await takeCallbackState(deps, state, authCode))) {
    throw new AppError(
      'state_invalid',
      'state is missing, unknown, expired or was used for another code: connect the account again',
      { httpStatus: 400 },
    );
  }
  limits.perSource.take(source);
  limits.overall.take('all');
  const { appId, outcome, permissions } = await exchangeAuthorizationCode(deps, authCode, 'callback');
  return { appId, outcome, permissions: [...permissions] };
}

/** The browser's side of the error middleware: the same log line for a failure, then a redirect. */
function redirectWithError(deps: ConnectDeps, req: Request, res: Response, err: unknown): void {
  const failed = !(err instanceof AppError) || err.httpStatus >= 500;
  // A failure's own code may say more than a browser's address bar should: it is `internal` there.
  const code = failed ? 'internal' : err.code;
  if (failed) {
    const logged = err instanceof AppError ? err.code : 'internal';
    deps.logger.error({ code: logged, err: loggableError(err), requestId: req.requestId }, 'request failed');
  }
  res.redirect(303, `${ADMIN_PATH}/accounts?connect_error=${encodeURIComponent(code)}`);
}
