import { AppError } from '../../../src/errors';
import { createPushCrypto } from '../../../src/wechat/crypto';

// The official safe-mode vector, reference/wechat.md §5.4.
const APP_ID = 'wxba5fad812f8e6fb9';
const TOKEN = 'AAAAA';
const KEY = 'A'.repeat(43);
const ENCRYPT =
  '+qdx1OKCy+5JPCBFWw70tm0fJGb2Jmeia4FCB7kao+/Q5c/ohsOzQHi8khUOb05JCpj0JB4RvQMkUyus8TPxLKJGQqcvZqzDpVzazhZv6JsXUnnR8XGT740XgXZUXQ7vJVnAG+tE8NUd4yFyjPy7GgiaviNrlCTj+l5kdfMuFUPpRSrfMZuMcp3Fn2Pede2IuQrKEYwKSqFIZoNqJ4M8EajAsjLY2km32IIjdf8YL/P50F7mStwntrA2cPDrM1kb6mOcfBgRtWygb3VIYnSeOBrebufAlr7F9mFUPAJGj04=';
const MESSAGE =
  '{"ToUserName":"gh_97417a04a28d","FromUserName":"o9AgO5Kd5ggOC-bXrbNODIiE3bGY","CreateTime":1714112445,"MsgType":"event","Event":"debug_demo","debug_str":"hello world"}';
const OTHER_KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';

const official = (extra: { previousEncodingAESKey?: string; encodingAESKey?: string; appId?: string } = {}) =>
  createPushCrypto({ appId: APP_ID, token: TOKEN, encodingAESKey: KEY, ...extra });

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('createPushCrypto: the official safe-mode vector', () => {
  it('computes the official msg_signature over the Encrypt value', () => {
    expect(official().sign('1714112445', '415670741', ENCRYPT)).toBe(
      '046e02f8204d34f8ba5fa3b1db94908f3df2e9b3',
    );
  });

  it('decrypts to the exact JSON message (167 bytes) with the current key', () => {
    const { message, key } = official().decrypt(ENCRYPT);
    expect(message).toBe(MESSAGE);
    expect(Buffer.byteLength(message)).toBe(167);
    expect(key).toBe('current');
  });

  it('unpads the final 32-byte block whose pad byte is 19, which 16-byte PKCS#7 would refuse', () => {
    // 16 random + 4 length + 167 message + 18 appId = 205 bytes → 19 bytes of padding to 224.
    expect(16 + 4 + 167 + APP_ID.length + 19).toBe(224);
    expect(Buffer.from(ENCRYPT, 'base64')).toHaveLength(224);
    expect(official().decrypt(ENCRYPT).message).toBe(MESSAGE);
  });

  it('reproduces the official reply vector exactly: Encrypt and MsgSignature', () => {
    const crypto = official();
    const encrypt = crypto.encrypt('{"demo_resp":"good luck"}', { random: Buffer.from('707722b803182950') });
    expect(encrypt).toBe(
      'ELGduP2YcVatjqIS+eZbp80MNLoAUWvzzyJxgGzxZO/5sAvd070Bs6qrLARC9nVHm48Y4hyRbtzve1L32tmxSQ==',
    );
    expect(crypto.sign('1713424427', '415670741', encrypt)).toBe('1b9339964ed2e271e7c7b6ff2b0ef902fc94dea1');
  });
});

describe('createPushCrypto: keys, apps and tampering', () => {
  it('round-trips a message with a random prefix that differs on every call', () => {
    const crypto = official({ encodingAESKey: OTHER_KEY });
    const a = crypto.encrypt('你好 <xml/>');
    expect(a).not.toBe(crypto.encrypt('你好 <xml/>'));
    expect(crypto.decrypt(a)).toEqual({ message: '你好 <xml/>', key: 'current' });
  });

  it('falls back to the previous EncodingAESKey after a rotation and says so', () => {
    const rotated = official({ encodingAESKey: OTHER_KEY, previousEncodingAESKey: KEY });
    expect(rotated.decrypt(ENCRYPT)).toEqual({ message: MESSAGE, key: 'previous' });
  });

  it('encrypts a reply under the key that opened the push when asked to', () => {
    const rotated = official({ encodingAESKey: OTHER_KEY, previousEncodingAESKey: KEY });
    const reply = rotated.encrypt('ok', { key: 'previous' });
    expect(official().decrypt(reply).message).toBe('ok');
  });

  it('answers push_decrypt_failed (400) when neither key opens the push', () => {
    const err = thrown(() => official({ encodingAESKey: OTHER_KEY }).decrypt(ENCRYPT));
    expect([err.code, err.httpStatus]).toEqual(['push_decrypt_failed', 400]);
  });

  it('answers push_wrong_app (400) when the trailing AppID is not ours', () => {
    const err = thrown(() => official({ appId: 'wx0000000000000000' }).decrypt(ENCRYPT));
    expect([err.code, err.httpStatus]).toEqual(['push_wrong_app', 400]);
  });

  it('answers push_decrypt_failed for tampered, truncated or non-base64 ciphertext', () => {
    const bytes = Buffer.from(ENCRYPT, 'base64');
    bytes[bytes.length - 1] ^= 0x01;
    const tampered = bytes.toString('base64');
    for (const bad of [tampered, ENCRYPT.slice(0, 40), 'not base64!', '']) {
      expect(thrown(() => official().decrypt(bad)).code).toBe('push_decrypt_failed');
    }
  });

  it('refuses an EncodingAESKey that is not 43 letters or digits at creation', () => {
    for (const key of ['A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}+`]) {
      expect(thrown(() => official({ encodingAESKey: key })).code).toBe('push_key_invalid');
      expect(thrown(() => official({ previousEncodingAESKey: key })).code).toBe('push_key_invalid');
    }
  });
});
