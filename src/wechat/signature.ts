import { createHash, timingSafeEqual } from 'node:crypto';

/** A WeChat signature is a lowercase hex SHA-1: 40 characters. */
const SIGNATURE_LENGTH = 40;

/**
 * WeChat's push signature (reference/wechat.md §5.1, §5.4): the parts sorted lexicographically
 * (by UTF-16 code unit, which equals byte order for the ASCII values WeChat uses), joined with
 * nothing, SHA-1, lowercase hex. `[token, timestamp, nonce]` gives `signature`;
 * `[token, timestamp, nonce, Encrypt]` gives `msg_signature` and a reply's `MsgSignature`.
 */
export function sha1Signature(parts: readonly string[]): string {
  return createHash('sha1')
    .update([...parts].sort().join(''))
    .digest('hex');
}

/**
 * Whether `expected` (as received, e.g. the `signature` query parameter) is the signature of `parts`.
 * Compared in constant time so that a forger cannot learn the signature byte by byte from response
 * times; a missing value or one of the wrong length is simply false.
 */
export function signatureMatches(expected: string | undefined, parts: readonly string[]): boolean {
  if (expected === undefined || expected.length !== SIGNATURE_LENGTH) return false;
  const actual = Buffer.from(sha1Signature(parts), 'utf8');
  const given = Buffer.from(expected, 'utf8');
  // Non-ASCII input can make the byte length differ from the character length.
  return given.length === actual.length && timingSafeEqual(given, actual);
}
