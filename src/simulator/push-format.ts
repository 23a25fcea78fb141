import { randomInt } from 'node:crypto';
import type { SimPushFormat, SimPushMode } from './config';
import { signPush, type SimCipher } from './sim-crypto';

/** One plain field of a push; numbers are written bare (CreateTime, a 64-bit MsgId). */
export type PlainPushField = readonly [name: string, value: string, kind: 'text' | 'number'];
/**
 * A list of entries (the subscription-notice events): in XML `<name><List>…</List>…</name>`, in JSON a
 * top-level `"List"`, the entry itself when there is one, else an array (reference/wechat-platform.md §2.3).
 */
export type ListPushField = readonly [
  name: string,
  entries: readonly (readonly PlainPushField[])[],
  kind: 'list',
];
/** One field of a push, in order. */
export type PushField = PlainPushField | ListPushField;

/** What an account's pushes need to be signed and wrapped. */
export interface PushChannel {
  readonly appId: string;
  readonly token: string;
  readonly mode: SimPushMode;
  readonly format: SimPushFormat;
  /** Present for `compatible` and `safe`. */
  readonly cipher: SimCipher | null;
}

/** A push ready to POST: the query string (without `?`), the body and its content-type. */
export interface WirePush {
  readonly query: string;
  readonly body: string;
  readonly contentType: string;
}

/** CDATA cannot hold `]]>`; WeChat-style writers split it across two sections. */
const cdata = (text: string): string => `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;

/**
 * How an XML push is laid out: `compact` as WeChat writes it, `indented` with a line break and spaces
 * between every tag and its value, as a pretty-printing proxy or SDK test fixture writes it (WeChat's
 * SDKs read both alike: reference/wechat.md, update section).
 */
export type XmlLayout = 'compact' | 'indented';
export const XML_LAYOUTS = ['compact', 'indented'] as const satisfies readonly XmlLayout[];

/** The fields as a WeChat push body: `<xml>` of CDATA or bare numbers, or a JSON object. */
export function render(
  fields: readonly PushField[],
  format: SimPushFormat,
  layout: XmlLayout = 'compact',
): string {
  const [open, close] = layout === 'indented' ? ['\n  ', '\n'] : ['', ''];
  return format === 'xml' ? `<xml>${xmlOf(fields, open, close)}${close}</xml>` : jsonOf(fields);
}

function xmlOf(fields: readonly PushField[], open: string, close: string): string {
  return fields
    .map((f) => {
      if (f[2] === 'list') {
        const entries = f[1].map((e) => `${open}<List>${xmlOf(e, open, close)}${close}</List>`).join('');
        return `${open}<${f[0]}>${entries}${close}</${f[0]}>`;
      }
      const [n, v, k] = f;
      return `${open}<${n}>${open}${k === 'number' ? v : cdata(v)}${close}</${n}>`;
    })
    .join('');
}

// Built by hand so a 64-bit MsgId goes out as the bare number WeChat sends, beyond 2^53.
function jsonOf(fields: readonly PushField[]): string {
  const members = fields.map((f) => {
    if (f[2] === 'list') {
      const entries = f[1].map(jsonOf);
      return `"List":${entries.length === 1 ? entries[0] : `[${entries.join(',')}]`}`;
    }
    const [n, v, k] = f;
    return `${JSON.stringify(n)}:${k === 'number' ? v : JSON.stringify(v)}`;
  });
  return `{${members.join(',')}}`;
}

/**
 * Wraps a push the way WeChat does for the account's mode (reference/wechat.md §5.2, §5.4):
 * plaintext = the fields + `signature`; safe = `{ToUserName, Encrypt}` + `encrypt_type=aes` and
 * `msg_signature`; compatible = the fields and Encrypt together, with both signatures.
 * `timestampS` and `nonce` are given so that a repeat can be byte-identical.
 */
export function toWirePush(
  channel: PushChannel,
  fields: readonly PushField[],
  openid: string,
  timestampS: string,
  nonce: string,
  layout: XmlLayout = 'compact',
): WirePush {
  const query = new URLSearchParams({
    signature: signPush([channel.token, timestampS, nonce]),
    timestamp: timestampS,
    nonce,
    openid,
  });
  const contentType =
    channel.format === 'xml' ? 'text/xml; charset=utf-8' : 'application/json; charset=utf-8';
  const plain = render(fields, channel.format, layout);
  if (channel.mode === 'plaintext' || channel.cipher === null)
    return { query: query.toString(), body: plain, contentType };

  const encrypt = channel.cipher.encrypt(plain);
  query.set('encrypt_type', 'aes');
  query.set('msg_signature', signPush([channel.token, timestampS, nonce, encrypt]));
  const toUser = fields.find(([n]) => n === 'ToUserName') ?? ['ToUserName', '', 'text'];
  const wrapped: PushField[] =
    channel.mode === 'safe'
      ? [toUser, ['Encrypt', encrypt, 'text']]
      : [...fields, ['Encrypt', encrypt, 'text']];
  return { query: query.toString(), body: render(wrapped, channel.format, layout), contentType };
}

/** A nonce like WeChat's: a decimal number of up to ten digits. */
export function pushNonce(): string {
  return String(randomInt(1, 2 ** 31 - 1));
}
