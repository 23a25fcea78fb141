import { createHash } from 'node:crypto';
import type { PushMode } from '../contract';
import { AppError, UnauthorizedError } from '../errors';
import type { PushCrypto } from '../wechat/crypto';
import { extractEncrypt, parsePushBody, type Push, type PushFormat, toPush } from '../wechat/push';
import { findEncrypt } from '../wechat/push-envelope';
import { signatureMatches } from '../wechat/signature';
import type { UrlUse } from '../store/webhook-url-uses';

/** One account's webhook: the account with its push token, and its cipher when it has an EncodingAESKey. */
export interface Endpoint {
  readonly account: { readonly appId: string; readonly pushMode: PushMode; readonly token: string };
  readonly crypto: PushCrypto | null;
}

/** What the route hands over of a POST: its query parameters, content type and raw body. */
export interface PushRequest {
  readonly query: (name: string) => string | undefined;
  readonly contentType: string;
  readonly body: string;
}

/** A push proven to come from WeChat. */
export interface AuthenticPush {
  readonly push: Push;
  /** Plaintext mode only: the URL's signature does not cover the body, so the URL is claimed for it. */
  readonly urlUse: UrlUse | null;
}

const formatOf = (text: string): PushFormat => (text.trimStart().startsWith('{') ? 'json' : 'xml');

function malformed(message: string): AppError {
  return new AppError('push_malformed', message, { httpStatus: 400 });
}

/** Throws 401 unless `timestamp` (epoch seconds) is within `maxSkewS` of now. */
export function assertFresh(timestamp: string | undefined, maxSkewS: number): void {
  const seconds = Number(timestamp);
  if (
    timestamp === undefined ||
    !Number.isFinite(seconds) ||
    Math.abs(Date.now() / 1000 - seconds) > maxSkewS
  ) {
    throw new UnauthorizedError('timestamp missing or too far from now');
  }
}

/**
 * Proves a POST comes from WeChat, cheapest checks first, and reads its push: the timestamp's freshness;
 * in compatible and safe mode (`encrypt_type=aes`) the URL `signature` when sent, then `msg_signature`
 * over the Encrypt value found by a bounded scan — so a forged body costs microseconds, never a parse —
 * then the strict parse of the envelope and the decryption; in plaintext mode the URL `signature`, then
 * the parse. An account in compatible or safe mode takes encrypted pushes only. Throws 401 for anything
 * not authentic, 400 (`push_malformed`, `push_decrypt_failed`, `push_wrong_app`) for a malformed push.
 */
export function authenticatePush(
  req: PushRequest,
  { account, crypto }: Endpoint,
  maxSkewS: number,
): AuthenticPush {
  const timestamp = req.query('timestamp') ?? '';
  const nonce = req.query('nonce') ?? '';
  const signature = req.query('signature');
  assertFresh(timestamp, maxSkewS);

  if (req.query('encrypt_type') === 'aes') {
    if (!crypto) throw new UnauthorizedError('this account has no EncodingAESKey configured');
    // WeChat signs the URL in these modes too; the body is covered by msg_signature alone.
    if (signature !== undefined && !signatureMatches(signature, [account.token, timestamp, nonce])) {
      throw new UnauthorizedError('bad signature');
    }
    const format: PushFormat = /json/i.test(req.contentType) ? 'json' : formatOf(req.body);
    const encrypt = findEncrypt(req.body, format);
    if (encrypt === null) throw malformed('the push has no Encrypt');
    if (!signatureMatches(req.query('msg_signature'), [account.token, timestamp, nonce, encrypt])) {
      throw new UnauthorizedError('bad msg_signature');
    }
    // Authentic from here: the strict parse costs only what WeChat sends, and must agree with the scan.
    if (extractEncrypt(req.body, format) !== encrypt) throw malformed('the push has two Encrypt values');
    const plaintext = crypto.decrypt(encrypt).message;
    return { push: toPush(parsePushBody(plaintext, formatOf(plaintext))), urlUse: null };
  }

  if (account.pushMode !== 'plaintext') {
    throw new UnauthorizedError(`this account (pushMode ${account.pushMode}) accepts encrypted pushes only`);
  }
  if (signature === undefined || !signatureMatches(signature, [account.token, timestamp, nonce])) {
    throw new UnauthorizedError('bad signature');
  }
  const push = toPush(parsePushBody(req.body, formatOf(req.body)));
  const bodySha256 = createHash('sha256').update(req.body).digest('base64url');
  return { push, urlUse: { appId: account.appId, signature, bodySha256 } };
}
