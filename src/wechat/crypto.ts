import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '../errors';
import { sha1Signature } from './signature';

/** Settings of one account's safe-mode push encryption (reference/wechat.md §5.4). */
export interface PushCryptoOptions {
  /** The account's AppID: appended to every plaintext and checked on the way in. */
  readonly appId: string;
  /** The push Token configured on the WeChat platform. Secret. */
  readonly token: string;
  /** The 43-character EncodingAESKey. Secret. */
  readonly encodingAESKey: string;
  /** The key before the last rotation, tried when the current one fails. Secret. */
  readonly previousEncodingAESKey?: string;
}

/** Which configured key opened a push (a reply must be encrypted with the same one). */
export type PushKeyUsed = 'current' | 'previous';

/** Safe-mode encryption of one account. */
export interface PushCrypto {
  /**
   * Decrypts a push's `Encrypt` value with the current key, then the previous one.
   * Throws AppError `push_decrypt_failed` when neither opens it, `push_wrong_app` when it opens but
   * names another AppID.
   */
  decrypt(encrypt: string): { message: string; key: PushKeyUsed };
  /**
   * Encrypts `message` with the current key, or with `key` (a reply goes out under the key that opened
   * its push, reference §5.4). `random` (16 bytes) is only for reproducible tests.
   */
  encrypt(message: string, opts?: { random?: Buffer; key?: PushKeyUsed }): string;
  /** The `msg_signature` / `MsgSignature` of an `Encrypt` value. */
  sign(timestamp: string, nonce: string, encrypt: string): string;
}

/** WeChat pads to 32-byte blocks, not AES's 16: Node's automatic PKCS#7 padding cannot be used. */
const PAD_BLOCK = 32;
const RANDOM_BYTES = 16;
const LENGTH_BYTES = 4;
const ENCODING_AES_KEY = /^[A-Za-z0-9]{43}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+$|^(?:[A-Za-z0-9+/]{4})*[A-Za-z0-9+/]{2}(?:==|[A-Za-z0-9+/]=)$/;

function aesKey(encodingAESKey: string, name: string): Buffer {
  if (!ENCODING_AES_KEY.test(encodingAESKey)) {
    throw new AppError('push_key_invalid', `${name} must be 43 letters or digits`);
  }
  return Buffer.from(`${encodingAESKey}=`, 'base64');
}

function pad(data: Buffer): Buffer {
  const n = PAD_BLOCK - (data.length % PAD_BLOCK);
  return Buffer.concat([data, Buffer.alloc(n, n)]);
}

/** The unpadded plaintext, or null when the padding is not well formed (wrong key, tampering). */
function unpad(data: Buffer): Buffer | null {
  const n = data.length === 0 ? 0 : data[data.length - 1];
  if (n < 1 || n > PAD_BLOCK || n > data.length) return null;
  for (let i = data.length - n; i < data.length; i += 1) if (data[i] !== n) return null;
  return data.subarray(0, data.length - n);
}

type Opened = { ok: true; message: string; appId: string } | { ok: false };

function open(key: Buffer, cipherText: Buffer): Opened {
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', key, key.subarray(0, 16)).setAutoPadding(false);
    plain = Buffer.concat([decipher.update(cipherText), decipher.final()]);
  } catch {
    return { ok: false };
  }
  const body = unpad(plain);
  if (body === null || body.length < RANDOM_BYTES + LENGTH_BYTES) return { ok: false };
  const length = body.readUInt32BE(RANDOM_BYTES);
  const start = RANDOM_BYTES + LENGTH_BYTES;
  if (length > body.length - start) return { ok: false };
  return {
    ok: true,
    message: body.subarray(start, start + length).toString('utf8'),
    appId: body.subarray(start + length).toString('utf8'),
  };
}

/**
 * Creates the safe-mode cipher of one account: AES-256-CBC with key = base64(EncodingAESKey + '='),
 * IV = the key's first 16 bytes, plaintext = random(16) + length(4, big-endian) + message + AppID,
 * PKCS#7-padded to 32 bytes. Throws AppError `push_key_invalid` for a malformed key.
 */
export function createPushCrypto(opts: PushCryptoOptions): PushCrypto {
  if (opts.appId === '' || opts.token === '') {
    throw new AppError('push_key_invalid', 'appId and token are required for push encryption');
  }
  const current = aesKey(opts.encodingAESKey, 'encodingAESKey');
  const previous =
    opts.previousEncodingAESKey === undefined
      ? undefined
      : aesKey(opts.previousEncodingAESKey, 'previousEncodingAESKey');
  const keys: [PushKeyUsed, Buffer][] = [['current', current]];
  if (previous !== undefined) keys.push(['previous', previous]);

  return {
    decrypt(encrypt) {
      if (!BASE64.test(encrypt)) throw decryptFailed('Encrypt is not base64');
      const cipherText = Buffer.from(encrypt, 'base64');
      if (cipherText.length === 0 || cipherText.length % 16 !== 0) {
        throw decryptFailed('Encrypt is not a whole number of AES blocks');
      }
      let foreignApp = false;
      for (const [name, key] of keys) {
        const opened = open(key, cipherText);
        if (!opened.ok) continue;
        if (opened.appId === opts.appId) return { message: opened.message, key: name };
        // Keep trying: garbage that happens to unpad under the wrong key must not hide the right one.
        foreignApp = true;
      }
      if (foreignApp) {
        throw new AppError('push_wrong_app', 'the push was encrypted for another AppID', { httpStatus: 400 });
      }
      throw decryptFailed('no configured EncodingAESKey opens this push');
    },

    encrypt(message, { random = randomBytes(RANDOM_BYTES), key = 'current' } = {}) {
      if (random.length !== RANDOM_BYTES) throw new RangeError(`random must be ${RANDOM_BYTES} bytes`);
      const aes = key === 'previous' ? previous : current;
      if (aes === undefined) throw new RangeError('no previous EncodingAESKey is configured');
      const text = Buffer.from(message, 'utf8');
      const length = Buffer.alloc(LENGTH_BYTES);
      length.writeUInt32BE(text.length);
      const plain = pad(Buffer.concat([random, length, text, Buffer.from(opts.appId, 'utf8')]));
      const cipher = createCipheriv('aes-256-cbc', aes, aes.subarray(0, 16)).setAutoPadding(false);
      return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
    },

    sign: (timestamp, nonce, encrypt) => sha1Signature([opts.token, timestamp, nonce, encrypt]),
  };
}

function decryptFailed(message: string): AppError {
  return new AppError('push_decrypt_failed', message, { httpStatus: 400 });
}
