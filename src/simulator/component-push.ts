import { type PushField, render, type WirePush } from './push-format';
import { signPush, type SimCipher } from './sim-crypto';

/** The simulated Open Platform's side of the authorization-event URL: the component and its push keys. */
export interface ComponentChannel {
  readonly componentAppId: string;
  readonly token: string;
  /** The component's cipher: its EncodingAESKey, with the component app id appended to every plaintext. */
  readonly cipher: SimCipher;
}

/**
 * Wraps a push to the authorization-event URL as the Open Platform does (reference/wechat-platform.md
 * §1.2): always safe mode and XML, the envelope `<AppId>` (the component's) + `<Encrypt>`, the query
 * `signature`, `timestamp`, `nonce`, `encrypt_type=aes` and `msg_signature`. The fields are the
 * plaintext's, `AppId` first.
 */
export function toComponentWirePush(
  channel: ComponentChannel,
  fields: readonly PushField[],
  timestampS: string,
  nonce: string,
): WirePush {
  const encrypt = channel.cipher.encrypt(render(fields, 'xml'));
  const query = new URLSearchParams({
    signature: signPush([channel.token, timestampS, nonce]),
    timestamp: timestampS,
    nonce,
    encrypt_type: 'aes',
    msg_signature: signPush([channel.token, timestampS, nonce, encrypt]),
  });
  return {
    query: query.toString(),
    body: render(
      [
        ['AppId', channel.componentAppId, 'text'],
        ['Encrypt', encrypt, 'text'],
      ],
      'xml',
    ),
    contentType: 'text/xml; charset=utf-8',
  };
}
