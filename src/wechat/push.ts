import { createHash } from 'node:crypto';
import { AppError } from '../errors';
import { parseStrictXml, XmlRefused, type XmlElement } from './push-xml';

/** The data format configured for an account's pushes on the WeChat platform. */
export type PushFormat = 'xml' | 'json';

/** One push from WeChat (a user message or an event), with the fields the service acts on. */
export interface Push {
  /** The account's original ID (`gh_…`). */
  readonly toUserName: string;
  /** The follower (`FromUserName`). */
  readonly openid: string;
  /** Epoch seconds, as WeChat sent it. */
  readonly createTime: number;
  /** `event`, `text`, `image`, … */
  readonly msgType: string;
  /** As sent (`subscribe`, `unsubscribe`, `SCAN`, `CLICK`, `VIEW`, `scancode_push`, …); null for messages. */
  readonly event: string | null;
  /** `qrscene_<scene>` on subscribe by QR, the scene on SCAN, the menu key on CLICK. */
  readonly eventKey: string | null;
  /** A 64-bit id: kept as a string because it does not fit a JavaScript number. */
  readonly msgId: string | null;
  /** The text of a text message. */
  readonly content: string | null;
  /** The QR code's ticket on scans. */
  readonly ticket: string | null;
  /** Every field, flattened (`ScanCodeInfo.ScanType`, `List.0.TemplateId`). */
  readonly fields: Readonly<Record<string, string>>;
}

// WeChat nests a few levels at most (SendPicsInfo.PicList.item.PicMd5Sum); more is not a push.
const MAX_DEPTH = 5;
const MAX_FIELDS = 500;
const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function malformed(message: string, cause?: unknown): AppError {
  return new AppError('push_malformed', message, { httpStatus: 400, cause });
}

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * What a follower typed, made storable: Postgres text and jsonb cannot hold NUL, and a lone surrogate
 * has no UTF-8 form (jsonb refuses its `\u` escape), so both become U+FFFD, as a UTF-8 decoder would
 * render them. Refusing instead would lose an authentic push.
 */
function storable(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
}

function put(out: Map<string, string>, key: string, value: string): void {
  if (out.has(key)) throw malformed(`field ${key} appears twice`);
  if (out.size >= MAX_FIELDS) throw malformed('too many fields');
  out.set(key, storable(value));
}

/** Flattens children; a name that repeats (a list) gets indexes, as JSON's arrays do. */
function flattenXml(out: Map<string, string>, prefix: string, children: readonly XmlElement[]): void {
  const counts = new Map<string, number>();
  for (const c of children) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const child of children) {
    const index = seen.get(child.name) ?? 0;
    seen.set(child.name, index + 1);
    // At the top a repeated field is ambiguous (which FromUserName is the real one?), not a list.
    if (prefix === '' && counts.get(child.name)! > 1) throw malformed(`field ${child.name} appears twice`);
    const key = counts.get(child.name)! > 1 ? `${prefix}${child.name}.${index}` : `${prefix}${child.name}`;
    if (child.children.length > 0) flattenXml(out, `${key}.`, child.children);
    else put(out, key, child.text);
  }
}

const KEY_FOLLOWS = /\s*:/y;

/**
 * Rewrites (already validated) JSON text so that JSON.parse keeps a 64-bit MsgId exactly as sent
 * (every number literal becomes a string), and refuses a key repeated within one object: JSON.parse
 * would silently keep the last one, where XML's repeated element is refused. Keys are compared decoded,
 * so `"From\u0055serName"` repeats `"FromUserName"`.
 */
function normalizeJson(text: string): string {
  // Per open container: the keys seen so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const token = text.slice(i, j + 1);
      const keys = open.at(-1);
      KEY_FOLLOWS.lastIndex = j + 1;
      if (keys && KEY_FOLLOWS.test(text)) {
        const key = JSON.parse(token) as string;
        if (keys.has(key)) throw malformed(`field ${JSON.stringify(key.slice(0, 64))} appears twice`);
        keys.add(key);
      }
      out += token;
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
      number.lastIndex = i;
      const token = number.exec(text)![0];
      out += `"${token}"`;
      i += token.length;
    } else {
      if (c === '{') open.push(new Set());
      else if (c === '[') open.push(null);
      else if (c === '}' || c === ']') open.pop();
      out += c;
      i += 1;
    }
  }
  return out;
}

function flattenJson(out: Map<string, string>, prefix: string, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw malformed('fields nested too deep');
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as object);
  for (const [name, v] of entries) {
    if (!Array.isArray(value) && !KEY.test(name)) throw malformed(`field name ${JSON.stringify(name)}`);
    const key = `${prefix}${name}`;
    if (typeof v === 'string') put(out, key, v);
    else if (typeof v === 'boolean') put(out, key, String(v));
    else if (v !== null && typeof v === 'object') flattenJson(out, `${key}.`, v, depth + 1);
    // null: WeChat never sends it; an absent field says the same.
  }
}

/**
 * Reads a push body into flat string fields: XML (`<xml>` of elements with CDATA or text) or a JSON
 * object. Numbers stay strings as sent; nested lists flatten to dotted keys; NUL and lone surrogates in
 * values become U+FFFD. Throws AppError `push_malformed` (400) for anything else, including any DOCTYPE
 * or ENTITY declaration and a field (XML element or JSON key) repeated at one level.
 */
export function parsePushBody(raw: string, format: PushFormat): Record<string, string> {
  const out = new Map<string, string>();
  if (format === 'xml') {
    let root: XmlElement;
    try {
      root = parseStrictXml(raw);
    } catch (err) {
      if (err instanceof XmlRefused) throw malformed(`not a WeChat XML push: ${err.message}`, err);
      throw err;
    }
    if (root.text.trim() !== '') throw malformed('the <xml> root holds text, not fields');
    flattenXml(out, '', root.children);
  } else {
    let value: unknown;
    try {
      JSON.parse(raw);
      value = JSON.parse(normalizeJson(raw));
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw malformed('not valid JSON', err);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw malformed('a JSON push must be an object');
    }
    flattenJson(out, '', value, 1);
  }
  // fromEntries defines own properties, so a field named __proto__ stays a field.
  return Object.fromEntries(out);
}

function required(fields: Readonly<Record<string, string>>, name: string): string {
  const value = fields[name];
  if (value === undefined || value === '') throw malformed(`the push has no ${name}`);
  return value;
}

/** Types a push's fields; throws `push_malformed` without ToUserName, FromUserName, CreateTime, MsgType. */
export function toPush(fields: Readonly<Record<string, string>>): Push {
  const createTime = required(fields, 'CreateTime');
  if (!/^\d{1,12}$/.test(createTime)) throw malformed('CreateTime must be epoch seconds');
  const msgId = fields.MsgId ?? null;
  if (msgId !== null && !/^\d{1,20}$/.test(msgId)) throw malformed('MsgId must be digits');
  return {
    toUserName: required(fields, 'ToUserName'),
    openid: required(fields, 'FromUserName'),
    createTime: Number(createTime),
    msgType: required(fields, 'MsgType'),
    event: fields.Event ?? null,
    eventKey: fields.EventKey ?? null,
    msgId,
    content: fields.Content ?? null,
    ticket: fields.Ticket ?? null,
    fields,
  };
}

/**
 * The key under which retries of one push collapse (reference/wechat.md §5.3): `msg:<MsgId>` for
 * messages, `evt:<FromUserName>:<CreateTime>:<Event>:<EventKey>` for events (they carry no MsgId), with a
 * digest of the `List` for subscription-notice events and the MsgID for a template delivery report.
 */
export function pushDedupeKey(push: Push): string {
  if (push.msgId !== null) return `msg:${push.msgId}`;
  const key = `evt:${push.openid}:${push.createTime}:${push.event ?? ''}:${push.eventKey ?? ''}`;
  // A template message's delivery report: two reports to one follower in one second differ by MsgID.
  if (push.event === 'TEMPLATESENDJOBFINISH' && push.fields.MsgID) return `${key}:${push.fields.MsgID}`;
  // Subscription-notice events carry no EventKey: two answers of one second differ only in their lists.
  if (!push.event?.startsWith('subscribe_msg_')) return key;
  const list = Object.entries(push.fields).filter(([name]) => /(^|\.)List(\.|$)/.test(name));
  return `${key}:${createHash('sha1').update(JSON.stringify(list.sort())).digest('hex')}`;
}

/** The `Encrypt` value of a safe- or compatible-mode body; throws `push_malformed` when absent. */
export function extractEncrypt(raw: string, format: PushFormat): string {
  return required(parsePushBody(raw, format), 'Encrypt');
}
