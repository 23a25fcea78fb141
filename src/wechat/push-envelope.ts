import type { PushFormat } from './push';
import { isXmlSpace } from './push-xml';

/**
 * More tags, CDATA sections or strings than any push's envelope holds (push.ts allows 500 fields, the
 * XML reader 1,000 elements): past this the scan gives up rather than cost more.
 */
const MAX_TOKENS = 4096;

const XML_TAG = /<(\/?)([A-Za-z_][A-Za-z0-9_-]*)\s*(\/?)>/y;
const XML_ENCRYPT_CLOSE = /<\/Encrypt\s*>/y;
const JSON_STRUCTURE = ['"', '{', '}', '[', ']'] as const;
const JSON_COLON = /\s*:\s*/y;

/** Whether `pattern` matches at `at`; its lastIndex is then where the match ends. */
function matchesAt(pattern: RegExp, raw: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(raw);
}

/**
 * The top-level `Encrypt` value of a compatible- or safe-mode push, found by a bounded scan instead of a
 * parse: `msg_signature` covers exactly this value, so it can be checked before the body costs anything
 * more (a forged 256 KB body must not cost a full parse). The scan knows just enough XML and JSON not to
 * be fooled by `<Encrypt>` typed inside another field's CDATA or string, or by a nested `Encrypt`.
 * Returns null when it finds none; the strict parse that follows a matching signature has the last word
 * on the envelope's shape.
 */
export function findEncrypt(raw: string, format: PushFormat): string | null {
  return format === 'xml' ? findXmlEncrypt(raw) : findJsonEncrypt(raw);
}

function findXmlEncrypt(raw: string): string | null {
  let depth = 0;
  let i = 0;
  for (let tokens = 0; tokens < MAX_TOKENS; tokens += 1) {
    const lt = raw.indexOf('<', i);
    if (lt === -1) return null;
    if (raw.startsWith('<![CDATA[', lt)) {
      const end = raw.indexOf(']]>', lt + 9);
      if (end === -1) return null;
      i = end + 3;
      continue;
    }
    // The XML declaration; anything else of the kind is refused by the strict parse.
    if (raw[lt + 1] === '?' || raw[lt + 1] === '!') {
      i = lt + 2;
      continue;
    }
    const tag = XML_TAG;
    tag.lastIndex = lt;
    const parts = tag.exec(raw);
    if (parts === null) return null;
    i = tag.lastIndex;
    if (parts[1] === '/') depth -= 1;
    else if (parts[3] !== '/') {
      depth += 1;
      // Depth 1 is the <xml> root; its children are the push's fields.
      if (depth === 2 && parts[2] === 'Encrypt') return xmlEncryptValue(raw, i);
    }
  }
  return null;
}

/** Where the XML whitespace from `at` on ends. */
function skipXmlSpace(raw: string, at: number): number {
  let i = at;
  while (isXmlSpace(raw[i])) i += 1;
  return i;
}

/**
 * One CDATA section or plain text (base64 needs no entities), then `</Encrypt>`; whitespace around the
 * value is not part of it, as the strict parse reads it (wechat/push-xml.ts).
 */
function xmlEncryptValue(raw: string, at: number): string | null {
  const from = skipXmlSpace(raw, at);
  const cdata = raw.startsWith('<![CDATA[', from);
  const start = cdata ? from + 9 : from;
  const end = cdata ? raw.indexOf(']]>', start) : raw.indexOf('<', start);
  if (end === -1) return null;
  let to = end;
  while (!cdata && to > start && isXmlSpace(raw[to - 1])) to -= 1;
  const value = raw.slice(start, to);
  if (!cdata && value.includes('&')) return null;
  return matchesAt(XML_ENCRYPT_CLOSE, raw, cdata ? skipXmlSpace(raw, end + 3) : end) ? value : null;
}

/** The index of the quote that closes the JSON string opening at `start`, or -1. */
function jsonStringEnd(raw: string, start: number): number {
  for (let quote = raw.indexOf('"', start + 1); quote !== -1; quote = raw.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (raw[quote - 1 - backslashes] === '\\') backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * Returns a function giving the index of the next quote, brace or bracket from an index (never moving
 * back), or -1. Each character's next position is found with indexOf and kept until passed, so a long
 * run of anything else (a forged body's 100,000 numbers) is crossed at memchr speed, once.
 */
function structureFinder(raw: string): (from: number) => number {
  const next = JSON_STRUCTURE.map(() => -2);
  return (from) => {
    let nearest = -1;
    for (let k = 0; k < JSON_STRUCTURE.length; k += 1) {
      if (next[k] !== -1 && next[k] < from) next[k] = raw.indexOf(JSON_STRUCTURE[k], from);
      if (next[k] !== -1 && (nearest === -1 || next[k] < nearest)) nearest = next[k];
    }
    return nearest;
  };
}

function findJsonEncrypt(raw: string): string | null {
  const nextStructure = structureFinder(raw);
  let depth = 0;
  let i = 0;
  for (let tokens = 0; tokens < MAX_TOKENS; tokens += 1) {
    i = nextStructure(i);
    if (i === -1) return null;
    if (raw[i] !== '"') {
      depth += raw[i] === '{' || raw[i] === '[' ? 1 : -1;
      i += 1;
      continue;
    }
    const end = jsonStringEnd(raw, i);
    if (end === -1) return null;
    const isEncryptKey = depth === 1 && end - i === 8 && raw.startsWith('"Encrypt"', i);
    i = end + 1;
    if (isEncryptKey && matchesAt(JSON_COLON, raw, i)) {
      const start = JSON_COLON.lastIndex;
      const close = raw[start] === '"' ? jsonStringEnd(raw, start) : -1;
      if (close === -1) return null;
      try {
        return JSON.parse(raw.slice(start, close + 1)) as string;
      } catch {
        return null;
      }
    }
  }
  return null;
}
