import { createHash, randomBytes } from 'node:crypto';
import express, { type Request, type Response, Router } from 'express';
import type { Account } from '../accounts/account';
import type { Accounts } from '../accounts/registry';
import type { Config } from '../config';
import type { Pool } from '../db/pool';
import { isTransientDbError } from '../db/errors';
import { AppError, ConflictError, NotFoundError, UnauthorizedError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { createPushCrypto } from '../wechat/crypto';
import { signatureMatches } from '../wechat/signature';
import {
  assertFresh,
  type AuthenticPush,
  authenticatePush,
  type Endpoint,
} from '../webhook/authenticate-push';
import { pushTypeLabel } from '../webhook/push-type-label';
import type { Coalescer } from '../coalescer';
import { createPushRecorder, type PushToRecord, type RecordResult } from '../webhook/record-push';
import { createUrlUsePruner } from '../webhook/url-uses';
import type { UrlUse } from '../store/webhook-url-uses';
import { retry } from '../retry';
import { queryParam, toPushRequest } from './push-request';
import { loggableError } from '../loggable-error';

export interface WebhookDeps {
  readonly config: Config;
  /** A push is taken for an account with a push token, as the registry has it now. */
  readonly accounts: Accounts;
  readonly pool: Pool;
  readonly logger: Logger;
  /** Processes a recorded push after the answer went out. */
  readonly processLater: (pushId: number) => void;
  readonly metrics: Metrics;
}

/** What a request's URL names: the endpoint to check it against, and how to judge it once checked. */
interface Resolved {
  readonly endpoint: Endpoint;
  /** False for an app id that is no account (of the route's kind): refused like an unsigned push. */
  readonly known: boolean;
  /** A platform account that revoked the platform: an authentic push is refused with 403. */
  readonly unauthorized: boolean;
  /** Signed with the platform's shared token: its signature is remembered across every platform account. */
  readonly shared: boolean;
  /** The ToUserName its pushes must carry (a platform account's original id); null: not checked. */
  readonly originalId: string | null;
}

/** The one answer to every push not proven to come from WeChat for this URL, whatever failed. */
const NOT_FROM_WECHAT = 'not a push signed by WeChat for this URL';
/** The scope of the platform pushes' remembered signatures: no app id has a colon. */
const PLATFORM_SCOPE = 'platform:';

/** WeChat gives up after 5 s and retries; answer well before. */
const ANSWER_WITHIN_MS = 4000;
const RECORD_RETRY_MS = 500;
/** About a minute of retries while Postgres is down, then the push is given up (and logged). */
const RECORD_ATTEMPTS = 20;

const query = queryParam;

/**
 * A platform push's msg_signature, claimed for this account and body across every platform account: the
 * token that signs it is the platform's, so a push captured at one account's URL would otherwise be taken
 * again at another's within the skew window. WeChat retrying it at the same URL claims it again, alike.
 */
function sharedUse(req: Request, appId: string): UrlUse {
  const body = typeof req.body === 'string' ? req.body : '';
  return {
    appId: PLATFORM_SCOPE,
    signature: query(req, 'msg_signature') ?? '',
    bodySha256: createHash('sha256').update(`${appId}\u0000${body}`).digest('base64url'),
  };
}

/**
 * `GET|POST /wechat/:appId`, one endpoint per configured account with a push token. GET answers URL
 * verification (fresh timestamp, signature). POST authenticates the push (webhook/authenticate-push.ts:
 * signatures checked before any parse, timestamp skew, decryption, strict XML or JSON), records it
 * durably and deduplicated — in plaintext mode refusing a signed URL reused with another body (409) —
 * and answers `success`, within 4 s even when Postgres is slow, then processes it.
 */
export function createWebhookRouter(deps: WebhookDeps): Router {
  const router = Router();
  // Built once per version of an account: the registry hands out a new object when an account changes.
  const endpoints = new WeakMap<Account, Endpoint>();
  const endpointOf = (a: Account, token: string): Endpoint => {
    let endpoint = endpoints.get(a);
    if (!endpoint) {
      const crypto = a.encodingAESKey
        ? createPushCrypto({
            appId: a.appId,
            token,
            encodingAESKey: a.encodingAESKey,
            previousEncodingAESKey: a.previousEncodingAESKey ?? undefined,
          })
        : null;
      endpoint = { account: { appId: a.appId, pushMode: a.pushMode, token }, crypto };
      endpoints.set(a, endpoint);
    }
    return endpoint;
  };
  const recorder = createPushRecorder(deps.pool);
  const pruneUrlUses = createUrlUsePruner({
    pool: deps.pool,
    logger: deps.logger,
    maxSkewS: deps.config.webhookMaxSkewS,
  });

  // An authorized account's pushes: always safe mode, the platform's token and key, and the platform's app
  // id inside the ciphertext (reference/wechat-platform.md §0.4); recorded under the account's app id.
  const platform = deps.config.platform;
  const platformCrypto = platform
    ? createPushCrypto({
        appId: platform.componentAppId,
        token: platform.componentToken,
        encodingAESKey: platform.componentEncodingAESKey,
      })
    : null;
  const platformEndpointFor = (req: Request): Resolved => {
    const appId = String(req.params.appId);
    // No platform, no route: that tells nothing about any account.
    if (!platform || !platformCrypto) throw new NotFoundError(`platform webhook for ${appId}`);
    const account = deps.accounts.get(appId);
    return {
      // Every platform push is signed with the one component token: the path's account is judged after.
      endpoint: {
        account: { appId, pushMode: 'safe', token: platform.componentToken },
        crypto: platformCrypto,
      },
      known: account?.kind === 'platform',
      unauthorized: account?.kind === 'platform' && account.unauthorizedAt !== null,
      shared: true,
      originalId: account?.originalId ?? null,
    };
  };

  // An app id that is no account is checked against a token nobody has: it fails where a wrong signature
  // fails, after the same work, and is answered alike (docs/webhook.md "Security").
  const decoyToken = randomBytes(16).toString('hex');
  const decoy: Endpoint = {
    account: { appId: 'no-such-account', pushMode: 'safe', token: decoyToken },
    crypto: createPushCrypto({
      appId: 'no-such-account',
      token: decoyToken,
      encodingAESKey: randomBytes(43).toString('hex').slice(0, 43),
    }),
  };
  const endpointFor = (req: Request): Resolved => {
    const account = deps.accounts.get(String(req.params.appId));
    const own = { unauthorized: false, shared: false, originalId: null };
    if (!account?.token) return { endpoint: decoy, known: false, ...own };
    return { endpoint: endpointOf(account, account.token), known: true, ...own };
  };

  /**
   * What a refused request is answered: a push not proven to come from WeChat for this URL (any 401, and
   * anything at the URL of no account) gets the one answer every such refusal gets; the reason is logged.
   */
  const refused = (req: Request, known: boolean, err: unknown): unknown => {
    if (known && !(err instanceof AppError && err.httpStatus === 401)) return err;
    const reason = known ? (err as Error).message : 'no such account';
    deps.logger.debug({ appId: String(req.params.appId), reason, requestId: req.requestId }, 'push refused');
    return new UnauthorizedError(NOT_FROM_WECHAT);
  };

  router.get('/:appId', (req, res) => {
    const { endpoint, known } = endpointFor(req);
    const { account, crypto } = endpoint;
    const [timestamp, nonce, echostr] = [
      query(req, 'timestamp') ?? '',
      query(req, 'nonce') ?? '',
      query(req, 'echostr') ?? '',
    ];
    try {
      assertFresh(timestamp, deps.config.webhookMaxSkewS);
      const msgSignature = query(req, 'msg_signature');
      if (msgSignature !== undefined && crypto) {
        if (!signatureMatches(msgSignature, [account.token, timestamp, nonce, echostr]))
          throw new UnauthorizedError('bad msg_signature');
        res.type('text/plain').send(crypto.decrypt(echostr).message);
        return;
      }
      if (!signatureMatches(query(req, 'signature'), [account.token, timestamp, nonce]))
        throw new UnauthorizedError('bad signature');
    } catch (err) {
      throw refused(req, known, err);
    }
    res.type('text/plain').send(echostr);
  });

  const receive = (resolve: (req: Request) => Resolved) => async (req: Request, res: Response) => {
    const { endpoint, known, unauthorized, shared, originalId } = resolve(req);
    let authentic: AuthenticPush;
    try {
      authentic = authenticatePush(toPushRequest(req), endpoint, deps.config.webhookMaxSkewS);
      // A signed platform push at the URL of no platform account, or of another one: refused as if unsigned.
      if (!known) throw new UnauthorizedError('no such account');
      if (originalId !== null && authentic.push.toUserName !== originalId) {
        throw new AppError('push_wrong_account', 'the push is for another account (ToUserName)', {
          httpStatus: 401,
        });
      }
      if (unauthorized) {
        const message = `${endpoint.account.appId} no longer authorizes this platform`;
        throw new AppError('account_unauthorized', message, { httpStatus: 403 });
      }
    } catch (err) {
      const code = !known ? 'unknown_account' : err instanceof AppError ? err.code : 'error';
      deps.metrics.webhookPushes.inc({ type: 'unknown', verdict: `rejected:${code}` });
      throw refused(req, known, err);
    }
    const { push } = authentic;
    const urlUse = shared ? sharedUse(req, endpoint.account.appId) : authentic.urlUse;
    const type = pushTypeLabel(push);
    if (urlUse !== null) pruneUrlUses();
    // Authentic from here on: WeChat gets `success` in time whatever Postgres does; the record keeps
    // being retried in the background (a slow database must not make WeChat retry or the user see
    // "该公众号暂时无法提供服务").
    const recording = recordUntilStored(deps, recorder, {
      appId: endpoint.account.appId,
      push,
      urlUse,
      requestId: req.requestId,
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ANSWER_WITHIN_MS)));
    const result = await Promise.race([recording, late]).finally(() => clearTimeout(timer));
    if (result === 'late') {
      res.type('text/plain').send('success');
      deps.metrics.webhookPushes.inc({ type, verdict: 'answered_before_recorded' });
      recording
        .then((recorded) => recorded?.status === 'recorded' && deps.processLater(recorded.id))
        .catch((err: Error) => deps.logger.error({ err: loggableError(err) }, 'late push record failed'));
      return;
    }
    if (result?.status === 'replayed') {
      deps.metrics.webhookPushes.inc({ type, verdict: 'rejected:push_replayed' });
      throw new ConflictError(
        'push_replayed',
        'this signed push was taken already with another body or account',
      );
    }
    res.type('text/plain').send('success');
    deps.metrics.webhookPushes.inc({
      type,
      verdict: result?.status === 'recorded' ? 'recorded' : 'duplicate',
    });
    if (result?.status === 'recorded') deps.processLater(result.id);
  };
  const pushBody = express.text({ type: () => true, limit: deps.config.webhookBodyLimitBytes });
  router.post('/platform/:appId', pushBody, receive(platformEndpointFor));
  router.post('/:appId', pushBody, receive(endpointFor));
  return router;
}

/**
 * Records the push (with the pushes arriving meanwhile), retrying while Postgres is unreachable; null once given up. Any other database error
 * is logged by its SQLSTATE only — the driver's text can quote the follower's words — and answered 500.
 */
async function recordUntilStored(
  deps: WebhookDeps,
  recorder: Coalescer<PushToRecord, RecordResult>,
  pushToRecord: PushToRecord,
): Promise<RecordResult | null> {
  const { appId, requestId } = pushToRecord;
  try {
    return await retry(() => recorder.submit(pushToRecord), {
      attempts: RECORD_ATTEMPTS + 1,
      delayMs: (retry) => RECORD_RETRY_MS * Math.min(8, retry + 1),
      retryable: isTransientDbError,
    });
  } catch (err) {
    if (!isTransientDbError(err)) {
      deps.logger.error({ appId, requestId, err: loggableError(err) }, 'push could not be recorded');
      throw new AppError('push_not_recorded', 'the push could not be recorded');
    }
    // A connection failure's text names no follower data.
    deps.logger.error({ appId, requestId, err: loggableError(err) }, 'push could not be recorded; lost');
    return null;
  }
}
