import type { Service } from '../../src/main/start-service';
import type { SimPushFormat, SimPushMode } from '../../src/simulator/config';
import {
  type PushChannel,
  type PlainPushField,
  toWirePush,
  type WirePush,
} from '../../src/simulator/push-format';
import { createSimCipher } from '../../src/simulator/sim-crypto';
import { createPushCrypto } from '../../src/wechat/crypto';
import { sha1Signature } from '../../src/wechat/signature';
import { APP_ID, createHarness, type Harness, waitFor, writtenRows } from '../helpers/harness';

const TOKEN = 'hardeningtoken';
const AES_KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const SAFE_APP = APP_ID;
const PLAIN_APP = 'wxplain000000002';
const COMPAT_APP = 'wxcompat00000001';
const MODES: Readonly<Record<string, SimPushMode>> = {
  [SAFE_APP]: 'safe',
  [PLAIN_APP]: 'plaintext',
  [COMPAT_APP]: 'compatible',
};

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness({
    ROLE: 'api',
    WEBHOOK_MAX_SKEW_S: '60',
    WECHAT_ACCOUNTS: JSON.stringify(
      Object.entries(MODES).map(([appId, pushMode]) => ({
        appId,
        secret: 's',
        token: TOKEN,
        pushMode,
        ...(pushMode === 'plaintext' ? {} : { encodingAESKey: AES_KEY }),
      })),
    ),
  });
  service = await h.start();
});
afterAll(() => h.close());

const nowS = () => String(Math.floor(Date.now() / 1000));
let msgId = BigInt(Date.now()) * 1000n;
let nonces = 0;
/** A fresh nonce per push, as WeChat's. */
const aNonce = () => String((nonces += 1));

const head = (openid: string): PlainPushField[] => [
  ['ToUserName', 'gh_hardening', 'text'],
  ['FromUserName', openid, 'text'],
  ['CreateTime', nowS(), 'number'],
];
const aText = (openid: string, content: string): PlainPushField[] => [
  ...head(openid),
  ['MsgType', 'text', 'text'],
  ['Content', content, 'text'],
  ['MsgId', String((msgId += 1n)), 'number'],
];
const anEvent = (openid: string, event: string, key?: string): PlainPushField[] => [
  ...head(openid),
  ['MsgType', 'event', 'text'],
  ['Event', event, 'text'],
  ...(key === undefined ? [] : [['EventKey', key, 'text'] as PlainPushField]),
];

/** A push signed (and encrypted) as WeChat sends it for the account's mode, unless `mode` says otherwise. */
function aPush(
  appId: string,
  format: SimPushFormat,
  fields: readonly PlainPushField[],
  opts: { mode?: SimPushMode; timestampS?: string; nonce?: string } = {},
): WirePush {
  const mode = opts.mode ?? MODES[appId];
  const cipher = mode === 'plaintext' ? null : createSimCipher(appId, AES_KEY);
  const openid = fields.find(([name]) => name === 'FromUserName')![1];
  const channel: PushChannel = { appId, token: TOKEN, mode, format, cipher };
  return toWirePush(channel, fields, openid, opts.timestampS ?? nowS(), opts.nonce ?? aNonce());
}

const post = (appId: string, push: WirePush) =>
  fetch(`${service.url}/wechat/${appId}?${push.query}`, {
    method: 'POST',
    headers: { 'content-type': push.contentType },
    body: push.body,
  });

const pushRows = async (openid: string) =>
  (
    await h.db.pool.query<{ fields: Record<string, string>; outcome: string | null }>(
      `SELECT fields, outcome FROM webhook_pushes WHERE openid = $1 ORDER BY id`,
      [openid],
    )
  ).rows;
const interactions = async (openid: string) =>
  (
    await h.db.pool.query<{ kind: string; detail: string | null }>(
      `SELECT kind, detail FROM interactions WHERE openid = $1 ORDER BY created_at`,
      [openid],
    )
  ).rows;
const processed = (openid: string, count: number) =>
  waitFor(async () => (await pushRows(openid)).filter((r) => r.outcome !== null).length === count, 5000);

describe('webhook hardening', () => {
  describe('a follower typed NUL or a lone surrogate: the push is recorded with U+FFFD, never lost', () => {
    const combos: [SimPushFormat, string][] = [
      ['xml', PLAIN_APP],
      ['json', PLAIN_APP],
      ['xml', SAFE_APP],
      ['json', SAFE_APP],
    ];
    it.each(combos)('in %s to the %s account', async (format, appId) => {
      const openid = `o-nul-${format}-${MODES[appId]}`;
      const text = await post(appId, aPush(appId, format, aText(openid, 'hi\u0000there\ud800!')));
      expect(res(text.status, await text.text())).toEqual(res(200, 'success'));
      const click = await post(appId, aPush(appId, format, anEvent(openid, 'CLICK', 'menu\u0000\udc00key')));
      expect(res(click.status, await click.text())).toEqual(res(200, 'success'));

      expect(await processed(openid, 2)).toBe(true);
      const rows = await pushRows(openid);
      // A lone surrogate cannot cross UTF-8 (XML bodies, ciphertexts): it arrives as U+FFFD already.
      expect(rows.map((r) => r.fields.Content ?? r.fields.EventKey)).toEqual([
        'hi\uFFFDthere\uFFFD!',
        'menu\uFFFD\uFFFDkey',
      ]);
      expect(await interactions(openid)).toEqual([
        { kind: 'message', detail: 'text' },
        { kind: 'click', detail: 'menu\uFFFD\uFFFDkey' },
      ]);
      const { rows: follower } = await h.db.pool.query(
        `SELECT window_kind FROM followers WHERE app_id = $1 AND openid = $2`,
        [appId, openid],
      );
      expect(follower).toEqual([{ window_kind: 'click' }]);
    });
  });

  describe('plaintext mode: a signed URL is good for one body', () => {
    it('refuses the URL with another body (409, nothing recorded) and accepts WeChat retrying the same body once', async () => {
      const timestampS = nowS();
      const first = aPush(PLAIN_APP, 'xml', anEvent('o-replay-a', 'subscribe'), {
        timestampS,
        nonce: '4242',
      });
      // The same signed URL (openid is not signed) with another follower's push.
      const other = { ...aPush(PLAIN_APP, 'xml', anEvent('o-replay-b', 'subscribe')), query: first.query };

      expect(await (await post(PLAIN_APP, first)).text()).toBe('success');
      expect(await processed('o-replay-a', 1)).toBe(true);
      const before = await writtenRows(h.db);
      const replay = await post(PLAIN_APP, other);
      expect(replay.status).toBe(409);
      expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('push_replayed');
      expect(await writtenRows(h.db)).toEqual(before);

      const retry = await post(PLAIN_APP, first);
      expect(await retry.text()).toBe('success');
      expect(await writtenRows(h.db)).toEqual(before);
      expect(await pushRows('o-replay-b')).toEqual([]);
      expect(await interactions('o-replay-a')).toEqual([{ kind: 'subscribe', detail: null }]);
    });

    it('forgets a URL once its timestamp is stale (three skew windows), pruned by later pushes', async () => {
      // Two seconds, not one: a push's timestamp is whole seconds, and on a busy machine one signed at x.9 s
      // can arrive after (x + 2) s.
      const quick = await h.start({ WEBHOOK_MAX_SKEW_S: '2', HTTP_PORT: '0' });
      const send = (push: WirePush) =>
        fetch(`${quick.url}/wechat/${PLAIN_APP}?${push.query}`, {
          method: 'POST',
          headers: { 'content-type': push.contentType },
          body: push.body,
        });
      const old = aPush(PLAIN_APP, 'xml', anEvent('o-prune', 'subscribe'));
      expect(await (await send(old)).text()).toBe('success');
      const remembered = async () =>
        (
          await h.db.pool.query(`SELECT 1 FROM webhook_url_uses WHERE signature = $1`, [
            new URLSearchParams(old.query).get('signature'),
          ])
        ).rowCount === 1;
      expect(await remembered()).toBe(true);

      let n = 0;
      const forgotten = await waitFor(
        async () => {
          const fresh = aPush(PLAIN_APP, 'xml', anEvent(`o-prune-${(n += 1)}`, 'subscribe'));
          expect(await (await send(fresh)).text()).toBe('success');
          return !(await remembered());
        },
        20_000,
        250,
      );
      expect(forgotten).toBe(true);
      // Forgotten, and refused anyway: its timestamp is outside the window now.
      expect((await send(old)).status).toBe(401);
    });
  });

  it('refuses a push without its encrypted part on a compatible-mode account', async () => {
    const before = await writtenRows(h.db);
    const plain = await post(
      COMPAT_APP,
      aPush(COMPAT_APP, 'xml', anEvent('o-compat', 'subscribe'), { mode: 'plaintext' }),
    );
    expect(plain.status).toBe(401);
    expect(await writtenRows(h.db)).toEqual(before);

    const both = await post(
      COMPAT_APP,
      aPush(COMPAT_APP, 'xml', aText('o-compat', 'see <Encrypt>abc</Encrypt>')),
    );
    expect(await both.text()).toBe('success');
    expect(await processed('o-compat', 1)).toBe(true);
  });

  it('refuses URL verification (echostr) with a stale timestamp, in plaintext and safe mode', async () => {
    const stale = String(Math.floor(Date.now() / 1000) - 3600);
    const plain = await fetch(
      `${service.url}/wechat/${PLAIN_APP}?signature=${sha1Signature([TOKEN, stale, '9'])}&timestamp=${stale}&nonce=9&echostr=42`,
    );
    expect(plain.status).toBe(401);

    const crypto = createPushCrypto({ appId: SAFE_APP, token: TOKEN, encodingAESKey: AES_KEY });
    const echostr = crypto.encrypt('4375120948345356249');
    const verify = (timestampS: string) =>
      fetch(
        `${service.url}/wechat/${SAFE_APP}?timestamp=${timestampS}&nonce=9&echostr=${encodeURIComponent(echostr)}` +
          `&msg_signature=${crypto.sign(timestampS, '9', echostr)}`,
      );
    expect((await verify(stale)).status).toBe(401);
    const fresh = await verify(nowS());
    expect(await fresh.text()).toBe('4375120948345356249');
  });

  describe('duplicate keys in a JSON push are refused like duplicate XML elements', () => {
    const json = (rest: string) =>
      `{"ToUserName":"gh_hardening","FromUserName":"o-dup","CreateTime":${nowS()},"MsgType":"event","Event":"subscribe"${rest}}`;
    const signedPlain = (body: string): WirePush => {
      const timestampS = nowS();
      const nonce = aNonce();
      return {
        query: `signature=${sha1Signature([TOKEN, timestampS, nonce])}&timestamp=${timestampS}&nonce=${nonce}`,
        body,
        contentType: 'application/json',
      };
    };
    const signedSafe = (inner: string): WirePush => {
      const crypto = createPushCrypto({ appId: SAFE_APP, token: TOKEN, encodingAESKey: AES_KEY });
      const encrypt = crypto.encrypt(inner);
      const timestampS = nowS();
      return {
        query: `timestamp=${timestampS}&nonce=7&encrypt_type=aes&msg_signature=${crypto.sign(timestampS, '7', encrypt)}`,
        body: JSON.stringify({ ToUserName: 'gh_hardening', Encrypt: encrypt }),
        contentType: 'application/json',
      };
    };
    it.each([
      ['a repeated top-level key', PLAIN_APP, signedPlain(json(',"FromUserName":"o-other"'))],
      [
        'a repeated key spelled with an escape',
        PLAIN_APP,
        signedPlain(json(',"From\\u0055serName":"o-other"')),
      ],
      [
        'a repeated nested key',
        PLAIN_APP,
        signedPlain(json(',"ScanCodeInfo":{"ScanType":"a","ScanType":"b"}')),
      ],
      ['a repeated key inside the ciphertext', SAFE_APP, signedSafe(json(',"Event":"unsubscribe"'))],
    ])('%s', async (_name, appId, push) => {
      const before = await writtenRows(h.db);
      const answer = await post(appId, push);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('push_malformed');
      expect(await writtenRows(h.db)).toEqual(before);
    });
  });

  it('counts pushes of unknown types under type="other", so pushes cannot mint label values', async () => {
    for (let i = 0; i < 5; i += 1) {
      const fields: PlainPushField[] = [...head(`o-label-${i}`), ['MsgType', `zz_minted_${i}`, 'text']];
      expect(await (await post(PLAIN_APP, aPush(PLAIN_APP, 'xml', fields))).text()).toBe('success');
    }
    expect(
      await (await post(PLAIN_APP, aPush(PLAIN_APP, 'xml', anEvent('o-label', 'VIEW', 'x')))).text(),
    ).toBe('success');
    const series = (await service.metrics.registry.metrics())
      .split('\n')
      .filter((line) => line.startsWith('wechat_drip_webhook_pushes_total{'));
    expect(series.filter((line) => line.includes('zz_minted'))).toEqual([]);
    expect(series).toContain('wechat_drip_webhook_pushes_total{type="other",verdict="recorded"} 5');
    expect(series).toContain('wechat_drip_webhook_pushes_total{type="VIEW",verdict="recorded"} 1');
  });

  it('refuses forged safe-mode bodies of 260 KB without parsing them', async () => {
    const forged = (i: number): WirePush => ({
      query: `timestamp=${nowS()}&nonce=${i}&encrypt_type=aes&msg_signature=${'0'.repeat(40)}`,
      // Costly to parse in full (130,000 numbers), trivial to scan for Encrypt.
      body: `{"ToUserName":"gh","List":[${'1,'.repeat(130_000)}1],"Encrypt":"${'A'.repeat(64)}"}`,
      contentType: 'application/json',
    });
    const before = await writtenRows(h.db);
    // The service runs in this process: its CPU time (not the wall clock, which a busy machine or the
    // parallel test files stretch) is what parsing would cost.
    const started = process.cpuUsage();
    for (let i = 0; i < 200; i += 1) expect((await post(SAFE_APP, forged(i))).status).toBe(401);
    const { user, system } = process.cpuUsage(started);
    const cpuMs = (user + system) / 1000;
    // Measured: ~13 s when every forged body was parsed in full; well under 2 s when only scanned.
    expect(cpuMs).toBeLessThan(5000);
    expect(await writtenRows(h.db)).toEqual(before);
  });
});

/** Status and body together, so that a failure shows both. */
function res(status: number, body: string): { status: number; body: string } {
  return { status, body };
}
