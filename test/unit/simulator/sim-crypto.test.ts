import { createSimCipher, signPush } from '../../../src/simulator/sim-crypto';

// The official vectors, reference/wechat.md §5.1, §5.2 and §5.4.
const TOKEN = 'AAAAA';
const APP_ID = 'wxba5fad812f8e6fb9';
const KEY = 'A'.repeat(43);
const PUSH_ENCRYPT =
  '+qdx1OKCy+5JPCBFWw70tm0fJGb2Jmeia4FCB7kao+/Q5c/ohsOzQHi8khUOb05JCpj0JB4RvQMkUyus8TPxLKJGQqcvZqzDpVzazhZv6JsXUnnR8XGT740XgXZUXQ7vJVnAG+tE8NUd4yFyjPy7GgiaviNrlCTj+l5kdfMuFUPpRSrfMZuMcp3Fn2Pede2IuQrKEYwKSqFIZoNqJ4M8EajAsjLY2km32IIjdf8YL/P50F7mStwntrA2cPDrM1kb6mOcfBgRtWygb3VIYnSeOBrebufAlr7F9mFUPAJGj04=';
const PUSH_MESSAGE =
  '{"ToUserName":"gh_97417a04a28d","FromUserName":"o9AgO5Kd5ggOC-bXrbNODIiE3bGY","CreateTime":1714112445,"MsgType":"event","Event":"debug_demo","debug_str":"hello world"}';
const PUSH_RANDOM = Buffer.from('a8eedb185eb2fecf', 'utf8');
const REPLY_ENCRYPT =
  'ELGduP2YcVatjqIS+eZbp80MNLoAUWvzzyJxgGzxZO/5sAvd070Bs6qrLARC9nVHm48Y4hyRbtzve1L32tmxSQ==';

describe('signPush', () => {
  it('gives the official URL-verification signature', () => {
    expect(signPush([TOKEN, '1714036504', '1514711492'])).toBe('f464b24fc39322e44b38aa78f5edd27bd1441696');
  });

  it('gives the official plaintext-push signature', () => {
    expect(signPush([TOKEN, '1714037059', '486452656'])).toBe('899cf89e464efb63f54ddac96b0a0a235f53aa78');
  });

  it('gives the official safe-mode signature and msg_signature', () => {
    expect(signPush([TOKEN, '1714112445', '415670741'])).toBe('6c5c811b55cc85e0e1b54100749188c20beb3f5d');
    expect(signPush([TOKEN, '1714112445', '415670741', PUSH_ENCRYPT])).toBe(
      '046e02f8204d34f8ba5fa3b1db94908f3df2e9b3',
    );
  });

  it('gives the official reply MsgSignature, whatever order the parts come in', () => {
    expect(signPush([REPLY_ENCRYPT, '415670741', '1713424427', TOKEN])).toBe(
      '1b9339964ed2e271e7c7b6ff2b0ef902fc94dea1',
    );
  });
});

describe('createSimCipher', () => {
  const cipher = createSimCipher(APP_ID, KEY);

  it('encrypts the official push, given its random prefix, to the official Encrypt value', () => {
    expect(cipher.encrypt(PUSH_MESSAGE, PUSH_RANDOM)).toBe(PUSH_ENCRYPT);
  });

  it('encrypts the official reply to the official Encrypt value', () => {
    const random = Buffer.from('707722b803182950', 'utf8');
    expect(cipher.encrypt('{"demo_resp":"good luck"}', random)).toBe(REPLY_ENCRYPT);
  });

  it('opens the official push to its 167-byte message and AppID', () => {
    const opened = cipher.decrypt(PUSH_ENCRYPT);
    expect(opened).toEqual({ message: PUSH_MESSAGE, appId: APP_ID });
    expect(Buffer.byteLength(opened.message)).toBe(167);
  });

  it('pads to 32-byte blocks (the official push ends in 19 bytes of 19)', () => {
    const plainLength = 16 + 4 + 167 + APP_ID.length;
    expect(plainLength % 32).toBe(13);
    expect(Buffer.from(PUSH_ENCRYPT, 'base64').length).toBe(plainLength + 19);
  });

  it('round-trips non-ASCII text with a fresh random prefix each time', () => {
    const message = '<xml><Content><![CDATA[你好 👋]]></Content></xml>';
    const [first, second] = [cipher.encrypt(message), cipher.encrypt(message)];
    expect(first).not.toBe(second);
    expect(cipher.decrypt(first)).toEqual({ message, appId: APP_ID });
    expect(cipher.decrypt(second)).toEqual({ message, appId: APP_ID });
  });

  it('refuses to open a value under another key, or one that is not whole AES blocks', () => {
    const other = createSimCipher(APP_ID, 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG');
    expect(() => other.decrypt(PUSH_ENCRYPT)).toThrow(/does not open|longer than itself|too short/);
    expect(() => cipher.decrypt('AAAA')).toThrow(/whole number of AES blocks/);
  });

  it('refuses an EncodingAESKey that is not 43 letters or digits, and a random prefix not of 16 bytes', () => {
    expect(() => createSimCipher(APP_ID, 'short')).toThrow(/43 letters or digits/);
    expect(() => createSimCipher(APP_ID, `${'A'.repeat(42)}+`)).toThrow(/43 letters or digits/);
    expect(() => cipher.encrypt('x', Buffer.alloc(8))).toThrow(/16 bytes/);
  });
});
