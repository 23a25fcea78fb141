import { createHash, randomBytes } from 'node:crypto';

/** Every API key starts with this, so that a leaked one is recognisable (secret scanners, logs). */
export const KEY_PREFIX = 'wdk_';
/** `wdk_` and 43 base64url characters: 32 random bytes. */
const KEY_SHAPE = /^wdk_[A-Za-z0-9_-]{43}$/;

/** A new key: 32 random bytes, base64url, after the prefix. */
export const newKeyToken = (): string => KEY_PREFIX + randomBytes(32).toString('base64url');

/** Whether a bearer token has a key's shape (anything else is not looked up). */
export const isKeyShaped = (token: string): boolean => KEY_SHAPE.test(token);

/** The digest a key is stored and looked up by (SHA-256: the key is random, a slow hash adds nothing). */
export const keyDigest = (token: string): Buffer => createHash('sha256').update(token).digest();

/** What lists show of a key: the prefix and its last four characters. */
export const keyHint = (token: string): string => `${KEY_PREFIX}…${token.slice(-4)}`;
