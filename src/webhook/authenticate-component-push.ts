import { UnauthorizedError } from '../errors';
import { malformed, parsePlatformEvent, type PlatformEvent, wrongApp } from '../accounts/platform-event';
import type { PushCrypto } from '../wechat/crypto';
import { parsePushBody } from '../wechat/push';
import { findEncrypt } from '../wechat/push-envelope';
import { signatureMatches } from '../wechat/signature';
import { assertFresh, type PushRequest } from './authenticate-push';

/** A push to the authorization-event URL, proven to come from WeChat. */
export interface ComponentPush {
  /** The push's msg_signature: it covers the timestamp, the nonce and the body, so it names the push. */
  readonly msgSignature: string;
  readonly event: PlatformEvent;
}

/** The component's side of the check: its app id, push token and cipher. */
export interface ComponentEndpoint {
  readonly componentAppId: string;
  readonly token: string;
  readonly crypto: PushCrypto;
}

/**
 * Proves a POST to the authorization-event URL comes from WeChat and reads it (reference/wechat-platform.md
 * §1.2: always safe mode, XML, `<AppId>` instead of `<ToUserName>`), cheapest checks first: the
 * timestamp's freshness, `encrypt_type=aes`, the URL `signature` when sent, `msg_signature` over the
 * Encrypt value found by a bounded scan, then the strict parse, the envelope's AppId, the decryption
 * (whose trailing app id must be the component's) and the event's fields. Throws 401 for anything not
 * authentic, 400 (`push_malformed`, `push_decrypt_failed`, `push_wrong_app`) for a malformed push.
 */
export function authenticateComponentPush(
  req: PushRequest,
  endpoint: ComponentEndpoint,
  maxSkewS: number,
): ComponentPush {
  const timestamp = req.query('timestamp') ?? '';
  const nonce = req.query('nonce') ?? '';
  assertFresh(timestamp, maxSkewS);
  if (req.query('encrypt_type') !== 'aes') {
    throw new UnauthorizedError('the platform pushes in safe mode only (encrypt_type=aes)');
  }
  const signature = req.query('signature');
  if (signature !== undefined && !signatureMatches(signature, [endpoint.token, timestamp, nonce])) {
    throw new UnauthorizedError('bad signature');
  }
  const encrypt = findEncrypt(req.body, 'xml');
  if (encrypt === null) throw malformed('the push has no Encrypt');
  const msgSignature = req.query('msg_signature');
  if (
    msgSignature === undefined ||
    !signatureMatches(msgSignature, [endpoint.token, timestamp, nonce, encrypt])
  ) {
    throw new UnauthorizedError('bad msg_signature');
  }
  // Authentic from here: the strict parse costs only what WeChat sends, and must agree with the scan.
  const envelope = parsePushBody(req.body, 'xml');
  if (envelope.Encrypt !== encrypt) throw malformed('the push has two Encrypt values');
  if (envelope.AppId !== undefined && envelope.AppId !== endpoint.componentAppId) throw wrongApp();
  const plaintext = endpoint.crypto.decrypt(encrypt).message;
  return {
    msgSignature,
    event: parsePlatformEvent(parsePushBody(plaintext, 'xml'), endpoint.componentAppId),
  };
}
