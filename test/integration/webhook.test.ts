import type { Service } from '../../src/main/start-service';
import { createPushCrypto } from '../../src/wechat/crypto';
import { sha1Signature } from '../../src/wechat/signature';
import { APP_ID, createHarness, type Harness, waitFor, writtenRows } from '../helpers/harness';

const TOKEN = 'hooktoken';
const AES_KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const PLAIN_APP = 'wxplain000000001';
const SAFE_APP = APP_ID;

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness({
    ROLE: 'api',
    WEBHOOK_MAX_SKEW_S: '60',
    WECHAT_ACCOUNTS: JSON.stringify([
      { appId: SAFE_APP, secret: 's1', token: TOKEN, encodingAESKey: AES_KEY, pushMode: 'safe' },
      { appId: PLAIN_APP, secret: 's2', token: TOKEN },
    ]),
  });
  service = await h.start();
});
afterAll(() => h.close());

const now = () => String(Math.floor(Date.now() / 1000));
let nonces = 10_000;
const xml = (fields: Record<string, string | number>) =>
  `<xml>${Object.entries(fields)
    .map(([k, v]) => (typeof v === 'number' ? `<${k}>${v}</${k}>` : `<${k}><![CDATA[${v}]]></${k}>`))
    .join('')}</xml>`;
const event = (openid: string, ev: string, extra: Record<string, string | number> = {}) =>
  xml({
    ToUserName: 'gh_test',
    FromUserName: openid,
    CreateTime: Math.floor(Date.now() / 1000),
    MsgType: 'event',
    Event: ev,
    ...extra,
  });

function postPlain(
  body: string,
  opts: { timestamp?: string; signature?: string; appId?: string; contentType?: string } = {},
) {
  const timestamp = opts.timestamp ?? now();
  // A fresh nonce per push, as WeChat's: a plaintext URL is good for one body only.
  const nonce = String((nonces += 1));
  const signature = opts.signature ?? sha1Signature([TOKEN, timestamp, nonce]);
  return fetch(
    `${service.url}/wechat/${opts.appId ?? PLAIN_APP}?signature=${signature}&timestamp=${timestamp}&nonce=${nonce}&openid=x`,
    {
      method: 'POST',
      headers: { 'content-type': opts.contentType ?? 'text/xml' },
      body,
    },
  );
}

function postSafe(inner: string, opts: { appIdInside?: string; key?: string } = {}) {
  const crypto = createPushCrypto({
    appId: opts.appIdInside ?? SAFE_APP,
    token: TOKEN,
    encodingAESKey: opts.key ?? AES_KEY,
  });
  const encrypt = crypto.encrypt(inner);
  const timestamp = now();
  const nonce = '777';
  const msgSignature = sha1Signature([TOKEN, timestamp, nonce, encrypt]);
  return fetch(
    `${service.url}/wechat/${SAFE_APP}?signature=${sha1Signature([TOKEN, timestamp, nonce])}&timestamp=${timestamp}&nonce=${nonce}&encrypt_type=aes&msg_signature=${msgSignature}`,
    {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: xml({ ToUserName: 'gh_test', Encrypt: encrypt }),
    },
  );
}

const pushesFor = async (openid: string) =>
  (await h.db.pool.query(`SELECT event, outcome FROM webhook_pushes WHERE openid = $1`, [openid])).rows;

describe('the webhook', () => {
  it('answers URL verification with echostr when the signature is right, 401 otherwise', async () => {
    const timestamp = now();
    const ok = await fetch(
      `${service.url}/wechat/${PLAIN_APP}?signature=${sha1Signature([TOKEN, timestamp, '9'])}&timestamp=${timestamp}&nonce=9&echostr=4375120948345356249`,
    );
    expect(await ok.text()).toBe('4375120948345356249');
    const bad = await fetch(
      `${service.url}/wechat/${PLAIN_APP}?signature=0000&timestamp=${timestamp}&nonce=9&echostr=1`,
    );
    expect(bad.status).toBe(401);
  });

  it('records an authentic plaintext push, answers success, and processes it', async () => {
    const res = await postPlain(event('o-plain', 'subscribe'));
    expect(await res.text()).toBe('success');
    expect(await waitFor(async () => (await pushesFor('o-plain'))[0]?.outcome === 'subscribe:0', 5000)).toBe(
      true,
    );
  });

  it('decrypts a safe-mode push and checks msg_signature', async () => {
    const res = await postSafe(event('o-safe', 'subscribe'));
    expect(await res.text()).toBe('success');
    expect(await waitFor(async () => (await pushesFor('o-safe')).length === 1, 5000)).toBe(true);
  });

  it('accepts a JSON push', async () => {
    const body = JSON.stringify({
      ToUserName: 'gh_test',
      FromUserName: 'o-json',
      CreateTime: Math.floor(Date.now() / 1000),
      MsgType: 'event',
      Event: 'subscribe',
    });
    expect(await (await postPlain(body, { contentType: 'application/json' })).text()).toBe('success');
    expect(await waitFor(async () => (await pushesFor('o-json')).length === 1, 5000)).toBe(true);
  });

  it('records an unknown event type, answers success, and starts nothing', async () => {
    expect(await (await postPlain(event('o-odd', 'some_new_event'))).text()).toBe('success');
    expect(await waitFor(async () => (await pushesFor('o-odd'))[0]?.outcome === 'ignored', 5000)).toBe(true);
    const { rows } = await h.db.pool.query(`SELECT count(*)::int AS n FROM followers WHERE openid = 'o-odd'`);
    expect(rows[0].n).toBe(0);
  });

  describe('bad input: refused, nothing recorded', () => {
    const cases: [string, () => Promise<Response>, number][] = [
      ['a wrong signature', () => postPlain(event('o-bad', 'subscribe'), { signature: 'f'.repeat(40) }), 401],
      [
        'a missing signature',
        () =>
          fetch(`${service.url}/wechat/${PLAIN_APP}?timestamp=${now()}&nonce=1`, {
            method: 'POST',
            body: event('o-bad', 'subscribe'),
          }),
        401,
      ],
      [
        'a stale timestamp',
        () =>
          postPlain(event('o-bad', 'subscribe'), { timestamp: String(Math.floor(Date.now() / 1000) - 3600) }),
        401,
      ],
      ['malformed XML', () => postPlain('<xml><ToUserName>gh</ToUserName'), 400],
      ['malformed JSON', () => postPlain('{"ToUserName": ', { contentType: 'application/json' }), 400],
      [
        'an XXE entity',
        () =>
          postPlain(
            `<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${event('o-bad', 'subscribe').replace('subscribe', '&xxe;')}`,
          ),
        400,
      ],
      [
        'entity expansion (billion laughs)',
        () =>
          postPlain(
            `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><xml><FromUserName>&lol2;</FromUserName></xml>`,
          ),
        400,
      ],
      ['a 5 MB body', () => postPlain(`<xml><Content>${'a'.repeat(5 * 1024 * 1024)}</Content></xml>`), 413],
      // Answered as a bad signature is, so that the webhook tells no one which app ids are accounts.
      ['an unknown appId', () => postPlain(event('o-bad', 'subscribe'), { appId: 'wxunknown' }), 401],
      [
        'a plaintext push to a safe-mode account',
        () => postPlain(event('o-bad', 'subscribe'), { appId: SAFE_APP }),
        401,
      ],
      [
        'a ciphertext for another appId',
        () => postSafe(event('o-bad', 'subscribe'), { appIdInside: 'wxsomeoneelse001' }),
        400,
      ],
      [
        'a ciphertext under another key',
        () => postSafe(event('o-bad', 'subscribe'), { key: 'ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210abcdefg' }),
        400,
      ],
    ];
    it.each(cases)('%s', async (_name, send, status) => {
      const before = await writtenRows(h.db);
      const res = await send();
      expect(res.status).toBe(status);
      expect(await writtenRows(h.db)).toEqual(before);
    });
  });
});
