import fc from 'fast-check';
import type { Service } from '../../src/main/start-service';
import { sha1Signature } from '../../src/wechat/signature';
import { APP_ID, createHarness, type Harness, writtenRows } from '../helpers/harness';
import { aMessageRequest, aTextMessage } from '../helpers/builders';

// Bad-input fuzzing of the webhook and the /v1 API: random bodies, headers and encodings must never
// cause a 5xx, a crash, or a written row. Bounded: a few hundred cases per property, seeded by fast-check
// (a failure prints its seed and the shrunk counterexample).
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const TOKEN = 'fuzztoken';

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness({
    ROLE: 'api',
    WECHAT_ACCOUNTS: JSON.stringify([
      {
        appId: APP_ID,
        secret: 's',
        token: TOKEN,
        encodingAESKey: 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
        pushMode: 'compatible',
      },
    ]),
  });
  service = await h.start();
});
afterAll(() => h.close());

/**
 * Text with what Postgres refuses mixed in (NUL anywhere, lone UTF-16 surrogates in jsonb) among any
 * other code points: fast-check's default strings are printable ASCII and would never hit either.
 */
const hostileUnit = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
/** Always at least one NUL or one surrogate that nothing around it can pair up. */
const hostileString = fc
  .tuple(
    fc.string({ unit: hostileUnit, maxLength: 10 }),
    fc.constantFrom('\u0000', '\ud800x', 'x\udc00'),
    fc.string({ unit: hostileUnit, maxLength: 10 }),
  )
  .map((parts) => parts.join(''));
const hostileText = hostileString.map((content) => ({ msgtype: 'text', text: { content } }));
/** Requests valid but for one or more texts, so that the text is what reaches the checks (or Postgres). */
const validButHostile = {
  '/v1/messages': fc.oneof(
    fc.record({ appId: fc.constant(APP_ID), openid: fc.constant('o-fuzz'), message: hostileText }),
    fc.record({
      appId: fc.constant(APP_ID),
      openid: fc.constant('o-fuzz'),
      message: fc.constant(aTextMessage('x')),
      cancelKey: hostileString,
    }),
  ),
  '/v1/cancellations': fc.record({
    appId: fc.constant(APP_ID),
    cancelKey: hostileString,
    reason: hostileString,
  }),
  '/v1/sequences': fc.record({
    appId: fc.constant(APP_ID),
    name: fc.oneof(fc.constant('n'), hostileString),
    trigger: fc.oneof(
      fc.constant({ type: 'subscribe' }),
      hostileString.map((keyword) => ({ type: 'keyword', keyword })),
    ),
    steps: hostileText.map((message) => [{ offsetMs: 0, message }]),
  }),
};

const jsonish = fc.oneof(
  fc.json(),
  fc.json({ stringUnit: hostileUnit }),
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .record({
      appId: fc.oneof(fc.constant(APP_ID), fc.string()),
      openid: fc.oneof(fc.string(), hostileString),
      message: fc.jsonValue({ stringUnit: hostileUnit }),
    })
    .map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
);
const contentType = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-ndjson',
  'text/xml',
  'application/json; charset=latin1',
  '',
);

async function expectNoHarm(send: () => Promise<Response>): Promise<void> {
  const before = await writtenRows(h.db);
  const res = await send();
  expect(res.status).toBeLessThan(500);
  await res.arrayBuffer();
  expect(await writtenRows(h.db)).toEqual(before);
}

describe('fuzzing bad input', () => {
  it('POST /v1/messages: random bodies never cause a 5xx or a row', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          jsonish,
          validButHostile['/v1/messages'].map((v) => JSON.stringify(v)),
        ),
        contentType,
        async (body, type) => {
          await expectNoHarm(() =>
            h.api(service, '/v1/messages', {
              method: 'POST',
              body,
              headers: type ? { 'content-type': type } : {},
            }),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /v1/sequences and /v1/cancellations: random bodies never cause a 5xx or a row', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/sequences', '/v1/cancellations', '/v1/sequences/validate').chain((path) => {
          const valid = validButHostile[path === '/v1/cancellations' ? path : '/v1/sequences'];
          return fc.tuple(
            fc.constant(path),
            fc.oneof(
              jsonish,
              valid.map((v) => JSON.stringify(v)),
            ),
          );
        }),
        async ([path, body]) => {
          await expectNoHarm(() => h.api(service, path, { method: 'POST', body }));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /v1/messages/batch: lines with unstorable text are rejected one by one, the others stored', async () => {
    const clean = JSON.stringify(
      aMessageRequest({
        openid: 'o-fuzz',
        delayMs: 3_600_000,
        message: aTextMessage('x'),
      }),
    );
    const line = fc.oneof(
      fc.constant({ text: clean, good: true }),
      validButHostile['/v1/messages'].map((v) => ({ text: JSON.stringify(v), good: false })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 20 }), async (lines) => {
        const before = await writtenRows(h.db);
        const res = await h.api(service, '/v1/messages/batch', {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: lines.map((l) => l.text).join('\n'),
        });
        const answers = (await res.text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { summary?: unknown });
        const good = lines.filter((l) => l.good).length;
        expect(answers.at(-1)).toEqual({
          summary: { lines: lines.length, accepted: good, rejected: lines.length - good },
        });
        expect((await writtenRows(h.db)).messages).toBe(before.messages + good);
      }),
      { numRuns: Math.ceil(RUNS / 5) },
    );
  });

  it('the webhook: random bodies, query strings and signatures never cause a 5xx or a recorded push', async () => {
    const hex = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength });
    const query = fc.record({
      signature: fc.oneof(hex(40), fc.constant('valid')),
      timestamp: fc.oneof(fc.constant('now'), fc.string({ maxLength: 12 })),
      nonce: fc.string({ maxLength: 10 }),
      encrypt_type: fc.constantFrom(undefined, 'aes', 'raw'),
      msg_signature: fc.option(hex(40)),
    });
    const body = fc.oneof(
      jsonish,
      fc.string().map((s) => `<xml><ToUserName>gh</ToUserName><Encrypt>${s}</Encrypt></xml>`),
      fc.string().map((s) => `<xml>${s}</xml>`),
      fc.constant('<!DOCTYPE x [<!ENTITY a "b">]><xml>&a;</xml>'),
    );
    await fc.assert(
      fc.asyncProperty(query, body, contentType, async (q, raw, type) => {
        const timestamp = q.timestamp === 'now' ? String(Math.floor(Date.now() / 1000)) : q.timestamp;
        const signature = q.signature === 'valid' ? sha1Signature([TOKEN, timestamp, q.nonce]) : q.signature;
        const params = new URLSearchParams({ signature, timestamp, nonce: q.nonce });
        if (q.encrypt_type) params.set('encrypt_type', q.encrypt_type);
        if (q.msg_signature) params.set('msg_signature', q.msg_signature);
        // An authentic plaintext push with a random body: it may be recorded only if it parses as a push.
        const before = await writtenRows(h.db);
        const res = await fetch(`${service.url}/wechat/${APP_ID}?${params.toString()}`, {
          method: 'POST',
          body: raw,
          headers: type ? { 'content-type': type } : {},
        });
        expect(res.status).toBeLessThan(500);
        const text = await res.text();
        if (text !== 'success') expect(await writtenRows(h.db)).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });
});
