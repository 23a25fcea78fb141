import { z } from 'zod';
import { notPublished } from './published-secrets';

const KEY_BYTES = 32;

/**
 * A base64 AES-256 key of exactly 32 bytes, or what is wrong with it (never the key itself). The
 * configuration checks the keys' shape here; src/accounts/secret-box.ts opens secrets with them.
 */
export function parseKey(text: string): Buffer | string {
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(text.trim())) {
    return `must be ${KEY_BYTES} bytes in base64, 44 characters (openssl rand -base64 32)`;
  }
  return Buffer.from(text.trim(), 'base64');
}

/** Adds an issue (which never quotes the key) when `text` is not a 32-byte base64 key. */
function checkKey(text: string, ctx: z.RefinementCtx, which: string): Buffer {
  const key = parseKey(text);
  if (typeof key === 'string') ctx.addIssue({ code: 'custom', message: `${which} ${key}` });
  return typeof key === 'string' ? Buffer.alloc(0) : key;
}

/** ACCOUNTS_ENCRYPTION_KEY: one key, null when unset; never a key published in this repository. */
export const encryptionKey = z
  .string()
  .superRefine(notPublished('ACCOUNTS_ENCRYPTION_KEY'))
  .transform((text, ctx) => checkKey(text, ctx, 'the key'))
  .optional()
  .transform((key) => key ?? null);

/** ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: comma-separated keys, none when unset. */
export const encryptionKeys = z.string().transform((text, ctx) =>
  text
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k, i) => checkKey(k, ctx, `key ${i + 1}`)),
);
