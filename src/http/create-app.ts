import express, { type Express } from 'express';
import type { Logger } from '../logger';
import { ADMIN_PATH, createAdminRouter } from './admin-routes';
import { createAuthenticate, createAuthFailures, requireBearer } from './auth';
import { limitKeys } from './key-access';
import { answerFirst } from './answer-first';
import { requestId } from './request-id';
import { errorMiddleware, notFound } from './error-middleware';
import { publicHealthRoutes, type Readiness } from './health-routes';
import { noSniff } from './no-sniff';
import { strictPaths } from './strict-paths';
import type { V1Deps } from './v1-deps';
import { createV1Router } from './v1-routes';
import { guardBodyAndQuery } from './input-guard';
import { createScheduleContext, postMessage } from './post-message';
import { createQuickPostMessage } from './quick-post-message';
import { createWebhookRouter } from './webhook-routes';
import { createDocsRouter } from './docs-routes';
import { createComponentRouter } from './component-routes';
import type { ConnectDeps } from '../accounts/connect-account';
import type { PushedAuthorization } from '../accounts/exchange-pushed-code';
import { createPlatformCallbackRouter, createPlatformV1Router } from './platform-routes';

export interface AppDeps extends V1Deps {
  readonly logger: Logger;
  readonly readiness: () => Promise<Readiness>;
  /** Processes a recorded webhook push in the background. */
  readonly processPushLater: (pushId: number) => void;
  /** Connecting accounts through the third-party platform, when it is configured. */
  readonly connect: ConnectDeps | null;
  /** Exchanges the code of an authorization event the platform pushed, in the background. */
  readonly exchangeCodeLater: (push: PushedAuthorization) => void;
}

export type { Readiness };

/**
 * The body limit of `POST /v1/cancellations`, which may list 10,000 message ids (about 400 KB of JSON);
 * every other JSON body has `HTTP_BODY_LIMIT_BYTES`, when that is larger this one is too.
 */
const CANCELLATIONS_BODY_LIMIT_BYTES = 1024 * 1024;

/** A JSON body parser for the /v1 paths `parses` accepts, sent with a JSON content type. */
function jsonBodies(limit: number, parses: (path: string) => boolean) {
  return express.json({
    limit,
    strict: true,
    type: (req) =>
      parses(req.url?.split('?')[0] ?? '') &&
      typeof req.headers['content-type'] === 'string' &&
      /json/i.test(req.headers['content-type']),
  });
}

/** The api process's public express app (no listen: the composition root does that). */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // A SHA-1 of every JSON answer, for conditional GETs nobody makes: 2 % of the api's CPU per schedule request.
  // The admin page's static files keep theirs (express.static sets its own).
  app.set('etag', false);
  app.set('trust proxy', false);
  app.use(noSniff);
  app.use(requestId);
  app.use(strictPaths);
  const failures = createAuthFailures();
  const authenticate = createAuthenticate(deps.config.adminToken, deps.keys);
  // Every guarded route: the admin token, or an API key on the routes and accounts it may use.
  const bearer = [requireBearer(authenticate, failures), limitKeys];
  const contextFor = createScheduleContext(deps);
  // The request producers send most, routed ahead of the routers below (none of which takes it) with what
  // /v1 and its router give it — the token, the JSON body, the input guard — and nothing else. Most of
  // these requests do not reach express at all: see the quick route at the end.
  app.post(
    '/v1/messages',
    bearer,
    jsonBodies(deps.config.httpBodyLimitBytes, () => true),
    guardBodyAndQuery,
    postMessage(deps, contextFor),
  );

  // Liveness and a bare readiness only: metrics and the readiness detail are on the ops listener.
  app.use(publicHealthRoutes(deps));
  app.use(ADMIN_PATH, createAdminRouter());
  // A browser sent to the bare address lands on the admin page (its sign-in, without a session).
  app.get('/', (_req, res) => res.redirect(302, `${ADMIN_PATH}/`));
  // The contract and its rendering are public: before the token that guards the rest of /v1.
  app.use(createDocsRouter());

  const connect = deps.config.platform ? deps.connect : null;
  app.use('/v1/platform', bearer, createPlatformV1Router(connect, deps.config.httpBodyLimitBytes));
  // Before the accounts' webhooks: `component` and `platform` are refused as app ids (contract ROUTE_WORDS).
  if (deps.config.platform && connect) {
    app.use('/wechat', createPlatformCallbackRouter(connect));
    app.use(
      '/wechat',
      createComponentRouter({
        ...deps,
        platform: deps.config.platform,
        bodyLimitBytes: deps.config.webhookBodyLimitBytes,
        maxSkewS: deps.config.webhookMaxSkewS,
      }),
    );
  }
  app.use('/wechat', createWebhookRouter({ ...deps, processLater: deps.processPushLater }));
  app.use(
    '/v1',
    bearer,
    // The NDJSON batch routes stream their own bodies; everything else is one bounded JSON document.
    jsonBodies(deps.config.httpBodyLimitBytes, (path) => !isNdjsonRoute(path) && path !== '/cancellations'),
    jsonBodies(
      Math.max(deps.config.httpBodyLimitBytes, CANCELLATIONS_BODY_LIMIT_BYTES),
      (path) => path === '/cancellations',
    ),
    createV1Router(deps),
  );

  app.use(notFound);
  app.use(errorMiddleware(deps.logger));
  const quickPostMessage = createQuickPostMessage({
    deps,
    logger: deps.logger,
    contextFor,
    failures,
    authenticate,
    bodyLimitBytes: deps.config.httpBodyLimitBytes,
  });
  return answerFirst(app, quickPostMessage);
}

/** The /v1 routes whose NDJSON body is read as a stream by the route itself. */
const isNdjsonRoute = (path: string): boolean =>
  path === '/messages/batch' || /^\/sequences\/[^/]+\/enrollments\/batch$/.test(path);
