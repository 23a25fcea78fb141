import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors';

/** Sealed text: `v1.<key id>.<iv>.<tag>.<ciphertext>`, the three last base64url. */
const FORMAT = /^v1\.([0-9a-f]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]*)$/;
const IV_BYTES = 12;

/** A secret could not be opened: its key is not configured, or the key or the text is wrong. */
export class SecretKeyError extends AppError {
  constructor(message: string) {
    super('secret_key_error', message);
  }
}

/**
 * Seals and opens account secrets with AES-256-GCM. Each sealed text names the key that sealed it (the
 * first 4 bytes of the key's SHA-256, which reveals nothing usable) and is bound to its place (`context`,
 * e.g. `wx123:secret`), so a ciphertext copied onto another account or field does not open.
 */
export interface SecretBox {
  /** The current key's id; null when no key is configured (nothing can be sealed). */
  readonly keyId: string | null;
  seal(plain: string, context: string): string;
  /** The plain text; throws SecretKeyError naming the problem (never the secret). */
  open(sealed: string, context: string): string;
  /** True when `sealed` was sealed by an older key and should be sealed again with the current one. */
  isStale(sealed: string): boolean;
  /** True when the key of this id is configured (current or previous). */
  hasKey(keyId: string): boolean;
}

/** The id of the key that sealed `sealed`, or null when it is not a sealed text. Reveals nothing secret. */
export const sealedKeyId = (sealed: string): string | null => FORMAT.exec(sealed)?.[1] ?? null;

/** The id a sealed text records for `key`. */
export const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** The keys' shape is the configuration's to check; the box opens secrets with what it accepted. */
export { parseKey } from '../config/encryption-key';

export function createSecretBox(current: Buffer | null, previous: readonly Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const k of [...previous, ...(current ? [current] : [])]) keys.set(keyIdOf(k), k);
  const keyId = current ? keyIdOf(current) : null;
  return {
    keyId,
    seal(plain, context) {
      if (!current || !keyId) {
        throw new SecretKeyError('ACCOUNTS_ENCRYPTION_KEY is not set: account secrets cannot be stored');
      }
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'));
      return ['v1', keyId, ...parts].join('.');
    },
    open(sealed, context) {
      const m = FORMAT.exec(sealed);
      if (!m) throw new SecretKeyError(`the stored ${context} is not a sealed secret`);
      const key = keys.get(m[1]);
      if (!key) {
        throw new SecretKeyError(
          current
            ? `${context} was sealed with key ${m[1]}, which is neither ACCOUNTS_ENCRYPTION_KEY (${keyId}) nor one of ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: set the key that sealed it (a .env of an earlier checkout holds it), or start from an empty database`
            : `${context} is encrypted but ACCOUNTS_ENCRYPTION_KEY is not set`,
        );
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(m[2], 'base64url'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(Buffer.from(m[3], 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(m[4], 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretKeyError(
          `${context} does not open with key ${m[1]}: the key or the stored text is wrong`,
        );
      }
    },
    isStale(sealed) {
      return sealedKeyId(sealed) !== keyId;
    },
    hasKey: (id) => keys.has(id),
  };
}
