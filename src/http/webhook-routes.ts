import express, { type Request, Router } from 'express';
import type { Config, WechatAccount } from '../config';
import type { Pool } from '../db/pool';
import { isTransientDbError } from '../db/errors';
import { type AppError, NotFoundError, UnauthorizedError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { createPushCrypto, type PushCrypto } from '../wechat/crypto';
import { extractEncrypt, parsePushBody, type Push, type PushFormat, toPush } from '../wechat/push';
import { signatureMatches } from '../wechat/signature';
import { recordPush } from '../webhook/record-push';

export interface WebhookDeps {
  readonly config: Config;
  readonly pool: Pool;
  readonly logger: Logger;
  /** Processes a recorded push after the answer went out. */
  readonly processLater: (pushId: number) => void;
  readonly metrics: Metrics;
}

/** WeChat gives up after 5 s and retries; answer well before. */
const ANSWER_WITHIN_MS = 4000;
const RECORD_RETRY_MS = 500;
/** About a minute of retries while Postgres is down, then the push is given up (and logged). */
const RECORD_ATTEMPTS = 20;

interface Endpoint {
  readonly account: WechatAccount & { readonly token: string };
  readonly crypto: PushCrypto | null;
}

function query(req: Request, name: string): string | undefined {
  const v = req.query[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * `GET|POST /wechat/:appId`, one endpoint per configured account with a push token. GET answers URL
 * verification; POST checks the signature (`msg_signature` over the ciphertext in compatible and safe
 * mode), the timestamp skew, decrypts (current, then previous EncodingAESKey; the appId inside must be
 * ours), parses XML or JSON refusing entity declarations, records the push durably and deduplicated, and
 * answers `success` — within 4 s even when Postgres is slow — then processes it.
 */
export function createWebhookRouter(deps: WebhookDeps): Router {
  const router = Router();
  const endpoints = new Map<string, Endpoint>();
  for (const a of deps.config.wechatAccounts) {
    if (!a.token) continue;
    const crypto = a.encodingAESKey
      ? createPushCrypto({
          appId: a.appId,
          token: a.token,
          encodingAESKey: a.encodingAESKey,
          previousEncodingAESKey: a.previousEncodingAESKey ?? undefined,
        })
      : null;
    endpoints.set(a.appId, { account: { ...a, token: a.token }, crypto });
  }

  const endpointFor = (req: Request): Endpoint => {
    const endpoint = endpoints.get(String(req.params.appId));
    if (!endpoint) throw new NotFoundError(`webhook for ${String(req.params.appId)}`);
    return endpoint;
  };

  const checkFreshness = (req: Request) => {
    const timestamp = Number(query(req, 'timestamp'));
    if (
      !Number.isFinite(timestamp) ||
      Math.abs(Date.now() / 1000 - timestamp) > deps.config.webhookMaxSkewS
    ) {
      throw new UnauthorizedError('timestamp missing or too far from now');
    }
  };

  router.get('/:appId', (req, res) => {
    const { account, crypto } = endpointFor(req);
    const [timestamp, nonce, echostr] = [
      query(req, 'timestamp') ?? '',
      query(req, 'nonce') ?? '',
      query(req, 'echostr') ?? '',
    ];
    const msgSignature = query(req, 'msg_signature');
    if (msgSignature !== undefined && crypto) {
      if (!signatureMatches(msgSignature, [account.token, timestamp, nonce, echostr]))
        throw new UnauthorizedError('bad msg_signature');
      res.type('text/plain').send(crypto.decrypt(echostr).message);
      return;
    }
    if (!signatureMatches(query(req, 'signature'), [account.token, timestamp, nonce]))
      throw new UnauthorizedError('bad signature');
    res.type('text/plain').send(echostr);
  });

  /** Verifies, decrypts and parses a push; throws (401 / 400) for anything not authentic or malformed. */
  const authenticPush = (req: Request, { account, crypto }: Endpoint): Push => {
    const raw = typeof req.body === 'string' ? req.body : '';
    const format: PushFormat =
      /json/i.test(req.get('content-type') ?? '') || raw.trimStart().startsWith('{') ? 'json' : 'xml';
    const timestamp = query(req, 'timestamp') ?? '';
    const nonce = query(req, 'nonce') ?? '';
    let plaintext = raw;
    if (query(req, 'encrypt_type') === 'aes') {
      if (!crypto) throw new UnauthorizedError('this account has no EncodingAESKey configured');
      const encrypt = extractEncrypt(raw, format);
      if (!signatureMatches(query(req, 'msg_signature'), [account.token, timestamp, nonce, encrypt])) {
        throw new UnauthorizedError('bad msg_signature');
      }
      checkFreshness(req);
      plaintext = crypto.decrypt(encrypt).message;
    } else {
      if (account.pushMode === 'safe')
        throw new UnauthorizedError('this account accepts encrypted pushes only');
      if (!signatureMatches(query(req, 'signature'), [account.token, timestamp, nonce])) {
        throw new UnauthorizedError('bad signature');
      }
      checkFreshness(req);
    }
    return toPush(parsePushBody(plaintext, plaintext.trimStart().startsWith('{') ? 'json' : 'xml'));
  };

  router.post(
    '/:appId',
    express.text({ type: () => true, limit: deps.config.webhookBodyLimitBytes }),
    async (req, res) => {
      const endpoint = endpointFor(req);
      let push: Push;
      try {
        push = authenticPush(req, endpoint);
      } catch (err) {
        deps.metrics.webhookPushes.inc({
          type: 'unknown',
          verdict: `rejected:${(err as AppError).code ?? 'error'}`,
        });
        throw err;
      }
      const type = push.event ?? push.msgType;
      // Authentic from here on: WeChat gets `success` in time whatever Postgres does; the record keeps
      // being retried in the background (a slow database must not make WeChat retry or the user see
      // "该公众号暂时无法提供服务").
      const recording = recordUntilStored(deps, endpoint.account.appId, push, req.requestId);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ANSWER_WITHIN_MS)));
      const id = await Promise.race([recording, late]).finally(() => clearTimeout(timer));
      res.type('text/plain').send('success');
      if (id === 'late') {
        deps.metrics.webhookPushes.inc({ type, verdict: 'answered_before_recorded' });
        recording
          .then((recorded) => recorded !== null && deps.processLater(recorded))
          .catch((err: Error) => deps.logger.error({ err: err.message }, 'late push record failed'));
      } else {
        deps.metrics.webhookPushes.inc({ type, verdict: id === null ? 'duplicate' : 'recorded' });
        if (id !== null) deps.processLater(id);
      }
    },
  );
  return router;
}

async function recordUntilStored(
  deps: WebhookDeps,
  appId: string,
  push: Push,
  requestId: string,
): Promise<number | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await recordPush(deps.pool, appId, push, requestId);
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      if (attempt >= RECORD_ATTEMPTS) {
        deps.logger.error(
          { appId, requestId, err: (err as Error).message },
          'push could not be recorded; lost',
        );
        return null;
      }
      await new Promise((r) => setTimeout(r, RECORD_RETRY_MS * Math.min(8, attempt + 1)));
    }
  }
}
