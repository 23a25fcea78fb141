import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/*
 * The simulator's own WeChat push cryptography (reference/wechat.md §5.1, §5.4). It is written apart
 * from the service's src/wechat on purpose: a referee that signed and encrypted with the code it judges
 * would agree with that code's mistakes. Both are pinned to the official vectors instead.
 */

/** WeChat pads its plaintext to 32-byte blocks, twice AES's block, so Node's own padding is off. */
const WECHAT_BLOCK_BYTES = 32;
const AES_BLOCK_BYTES = 16;
const RANDOM_PREFIX_BYTES = 16;
const LENGTH_FIELD_BYTES = 4;
const ENCODING_AES_KEY = /^[A-Za-z0-9]{43}$/;

/**
 * A push signature: SHA-1 in lowercase hex over the parts sorted and joined with nothing.
 * `[token, timestamp, nonce]` gives `signature`; adding the `Encrypt` value gives `msg_signature`.
 */
export function signPush(parts: readonly string[]): string {
  const joined = [...parts].sort().join('');
  return createHash('sha1').update(joined, 'utf8').digest('hex');
}

/** What an `Encrypt` value holds once opened. */
export interface OpenedPush {
  readonly message: string;
  /** The AppID WeChat appends after the message. */
  readonly appId: string;
}

/** One account's safe-mode cipher, as WeChat applies it to pushes. */
export interface SimCipher {
  /**
   * The base64 `Encrypt` value of `message`. `random` is the 16-byte prefix, random unless given
   * (the official vectors fix it).
   */
  encrypt(message: string, random?: Buffer): string;
  /** Opens an `Encrypt` value; throws an Error saying why when this key cannot open it. */
  decrypt(encrypt: string): OpenedPush;
}

/**
 * Creates the cipher of one account: AES-256-CBC, key = base64(EncodingAESKey + '='), IV = the key's
 * first 16 bytes, plaintext = random(16) + length(4, network order) + message + AppID, PKCS#7-padded to
 * 32 bytes. Throws TypeError when the EncodingAESKey is not 43 letters or digits.
 */
export function createSimCipher(appId: string, encodingAESKey: string): SimCipher {
  if (!ENCODING_AES_KEY.test(encodingAESKey)) {
    throw new TypeError(`account ${appId}: encodingAESKey must be 43 letters or digits`);
  }
  const key = Buffer.from(`${encodingAESKey}=`, 'base64');
  const iv = key.subarray(0, AES_BLOCK_BYTES);
  const appIdBytes = Buffer.from(appId, 'utf8');

  return {
    encrypt(message, random = randomBytes(RANDOM_PREFIX_BYTES)) {
      if (random.length !== RANDOM_PREFIX_BYTES) {
        throw new RangeError(`the random prefix must be ${RANDOM_PREFIX_BYTES} bytes`);
      }
      const body = Buffer.from(message, 'utf8');
      const length = Buffer.alloc(LENGTH_FIELD_BYTES);
      length.writeUInt32BE(body.length);
      const plain = withPadding(Buffer.concat([random, length, body, appIdBytes]));
      const cipher = createCipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
      return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
    },

    decrypt(encrypt) {
      const sealed = Buffer.from(encrypt, 'base64');
      if (sealed.length === 0 || sealed.length % AES_BLOCK_BYTES !== 0) {
        throw new Error('Encrypt is not a whole number of AES blocks');
      }
      const decipher = createDecipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
      const plain = withoutPadding(Buffer.concat([decipher.update(sealed), decipher.final()]));
      const start = RANDOM_PREFIX_BYTES + LENGTH_FIELD_BYTES;
      if (plain.length < start) throw new Error('Encrypt is too short for its header');
      const end = start + plain.readUInt32BE(RANDOM_PREFIX_BYTES);
      if (end > plain.length) throw new Error('Encrypt names a message longer than itself');
      return {
        message: plain.subarray(start, end).toString('utf8'),
        appId: plain.subarray(end).toString('utf8'),
      };
    },
  };
}

function withPadding(data: Buffer): Buffer {
  const count = WECHAT_BLOCK_BYTES - (data.length % WECHAT_BLOCK_BYTES);
  return Buffer.concat([data, Buffer.alloc(count, count)]);
}

/** Throws when the padding is not PKCS#7 to 32 bytes: the usual sign of the wrong key. */
function withoutPadding(data: Buffer): Buffer {
  const count = data.at(-1) ?? 0;
  const padding = data.subarray(data.length - count);
  if (count < 1 || count > WECHAT_BLOCK_BYTES || count > data.length || padding.some((b) => b !== count)) {
    throw new Error('Encrypt does not open with this key (bad padding)');
  }
  return data.subarray(0, data.length - count);
}
