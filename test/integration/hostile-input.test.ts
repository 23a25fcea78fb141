import { loggableError } from '../../src/loggable-error';
import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness, writtenRows } from '../helpers/harness';
import {
  aMessageRequest,
  aSequence,
  aStep,
  aTextMessage,
  type MessageRequest,
  type SequenceRequest,
} from '../helpers/builders';

// Text Postgres cannot store — a NUL character anywhere, a lone UTF-16 surrogate in jsonb — and reserved
// field names, in every kind of place a request carries text: a 400 naming the field, nothing written.

let h: Harness;
let api: Service;
let queuedId: string;
let sequenceId: string;

const json = (method: string, body: unknown): RequestInit => ({
  method,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
/** A valid request due in an hour, so that it stays open while the test changes it. */
const aRequest = (over: Partial<MessageRequest> = {}) =>
  aMessageRequest({ openid: 'o-hostile', delayMs: 3_600_000, ...over });
/** A draft sequence (no status: the API's default), so that it never enrolls anyone. */
const aDraftSequence = (over: Partial<SequenceRequest> = {}) =>
  aSequence({
    name: 'welcome',
    status: undefined,
    steps: [aStep({ message: aTextMessage('welcome') })],
    ...over,
  });

beforeAll(async () => {
  // A longer horizon than the default 400 days, so that 29 February 2028 is schedulable from today.
  h = await createHarness({ ROLE: 'api', MAX_SCHEDULE_AHEAD_DAYS: '1000' });
  api = await h.start();
  queuedId = ((await (await h.api(api, '/v1/messages', json('POST', aRequest()))).json()) as { id: string })
    .id;
  sequenceId = (
    (await (await h.api(api, '/v1/sequences', json('POST', aDraftSequence()))).json()) as { id: string }
  ).id;
});
afterAll(() => h.close());

interface ErrorAnswer {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** Sends, expects a 400 with `code` naming `path`, and that no table changed. */
async function expectRefused(send: () => Promise<Response>, code: string, path: string): Promise<void> {
  const before = await writtenRows(h.db);
  const res = await send();
  const body = (await res.json()) as ErrorAnswer;
  expect([res.status, body.error.code]).toEqual([400, code]);
  expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  expect(await writtenRows(h.db)).toEqual(before);
}

/** A JSON object's text with `raw` members first (JSON.stringify cannot write a `__proto__` key). */
const withRaw = (fields: Record<string, unknown>, raw: string): string =>
  `{${raw},${JSON.stringify(fields).slice(1)}`;

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'a\ud800b';
/** How a bad field name appears in an error's path: its unstorable characters escaped. */
const escaped = (bad: string) => (bad === NUL ? 'a\\u0000b' : 'a\\ud800b');

describe('text Postgres cannot store, in a JSON body', () => {
  const cases: [string, (bad: string) => Promise<Response>, (bad: string) => string][] = [
    [
      'POST /v1/messages, a top-level field',
      (bad) => h.api(api, '/v1/messages', json('POST', aRequest({ cancelKey: bad }))),
      () => 'cancelKey',
    ],
    [
      'POST /v1/messages, a nested message field',
      (bad) => h.api(api, '/v1/messages', json('POST', aRequest({ message: aTextMessage(bad) }))),
      () => 'message.text.content',
    ],
    [
      'POST /v1/messages, a field name inside the message',
      (bad) =>
        h.api(
          api,
          '/v1/messages',
          json(
            'POST',
            aRequest({ channel: 'template', message: { template_id: 't', data: { [bad]: { value: 'x' } } } }),
          ),
        ),
      (bad) => `message.data.${escaped(bad)}`,
    ],
    [
      'PUT /v1/messages/:id',
      (bad) =>
        h.api(api, `/v1/messages/${queuedId}`, json('PUT', { delayMs: 60_000, message: aTextMessage(bad) })),
      () => 'message.text.content',
    ],
    [
      'PUT /v1/messages/by-key/…',
      (bad) =>
        h.api(
          api,
          `/v1/messages/by-key/${APP_ID}/k-hostile`,
          json('PUT', aRequest({ message: aTextMessage(bad) })),
        ),
      () => 'message.text.content',
    ],
    [
      'POST /v1/sequences, the name',
      (bad) => h.api(api, '/v1/sequences', json('POST', aDraftSequence({ name: bad }))),
      () => 'name',
    ],
    [
      'POST /v1/sequences, a step message',
      (bad) =>
        h.api(
          api,
          '/v1/sequences',
          json('POST', aDraftSequence({ steps: [{ offsetMs: 0, message: aTextMessage(bad) }] })),
        ),
      () => 'steps.0.message.text.content',
    ],
    [
      'PUT /v1/sequences/:id, the trigger',
      (bad) =>
        h.api(
          api,
          `/v1/sequences/${sequenceId}`,
          json('PUT', aDraftSequence({ trigger: { type: 'keyword', keyword: bad } })),
        ),
      () => 'trigger.keyword',
    ],
    [
      'POST /v1/cancellations, the reason',
      (bad) => h.api(api, '/v1/cancellations', json('POST', { appId: APP_ID, cancelKey: 'k', reason: bad })),
      () => 'reason',
    ],
  ];

  describe.each([
    ['a NUL character', NUL],
    ['a lone surrogate', LONE_SURROGATE],
  ])('%s', (_kind, bad) => {
    it.each(cases)('%s: 400 invalid_text naming the field, nothing written', async (_name, send, path) => {
      await expectRefused(() => send(bad), 'invalid_text', path(bad));
    });
  });
});

describe('text Postgres cannot store, in a path or a query', () => {
  // A URL is UTF-8, which cannot carry a lone surrogate; NUL (%00) is what reaches the handlers.
  const nul = encodeURIComponent(NUL);
  it.each<[string, string, () => string, string]>([
    [
      'PUT /v1/messages/by-key/:appId/:cancelKey',
      'PUT',
      () => `/v1/messages/by-key/${APP_ID}/${nul}`,
      'params.cancelKey',
    ],
    ['GET /v1/followers/:appId/:openid', 'GET', () => `/v1/followers/${APP_ID}/${nul}`, 'params.openid'],
    [
      'DELETE /v1/messages/:id?reason=',
      'DELETE',
      () => `/v1/messages/${queuedId}?reason=${nul}`,
      'query.reason',
    ],
    ['GET /v1/sequences?appId=', 'GET', () => `/v1/sequences?appId=${nul}`, 'query.appId'],
  ])('%s: 400 invalid_text naming it, nothing written', async (_name, method, url, path) => {
    const body = method === 'PUT' ? JSON.stringify(aRequest()) : undefined;
    await expectRefused(() => h.api(api, url(), { method, body }), 'invalid_text', path);
  });

  it('a path that is not UTF-8 is a 400, not a 500', async () => {
    const res = await h.api(api, `/v1/followers/${APP_ID}/%ED%A0%80`);
    expect(res.status).toBe(400);
  });
});

describe('reserved field names and other hardening', () => {
  it.each([
    ['__proto__ at the top', withRaw(aRequest(), '"__proto__":{"cancelKey":"k"}'), '__proto__'],
    [
      '__proto__ inside the message',
      withRaw(
        aRequest({ message: undefined }),
        '"message":{"__proto__":{},"msgtype":"text","text":{"content":"x"}}',
      ),
      'message.__proto__',
    ],
    [
      'constructor deep inside',
      withRaw(
        aRequest({ message: undefined }),
        '"message":{"msgtype":"text","text":{"content":"x","constructor":1}}',
      ),
      'message.text.constructor',
    ],
    [
      'prototype in a template field',
      withRaw(
        aRequest({ channel: 'template', message: undefined }),
        '"message":{"template_id":"t","data":{"prototype":{"value":"x"}}}',
      ),
      'message.data.prototype',
    ],
  ])('%s: 400 forbidden_key naming its path, nothing written', async (_name, raw, path) => {
    await expectRefused(
      () => h.api(api, '/v1/messages', { method: 'POST', body: raw }),
      'forbidden_key',
      path,
    );
  });

  it('names a field called toString or hasOwnProperty as unknown, with a message', async () => {
    const res = await h.api(
      api,
      '/v1/messages',
      json('POST', aRequest({ message: { ...aTextMessage('x'), toString: 'x', hasOwnProperty: 'y' } })),
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as ErrorAnswer;
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: 'message.toString', message: 'is not a known field', rule: { kind: 'unknown_field' } },
        { path: 'message.hasOwnProperty', message: 'is not a known field', rule: { kind: 'unknown_field' } },
      ]),
    );
  });

  it('refuses a DELETE reason longer than 500 characters, and the message stays open', async () => {
    await expectRefused(
      () => h.api(api, `/v1/messages/${queuedId}?reason=${'x'.repeat(501)}`, { method: 'DELETE' }),
      'validation_error',
      'query.reason',
    );
    const res = await h.api(api, `/v1/messages/${queuedId}`);
    expect(((await res.json()) as { status: string }).status).not.toBe('cancelled');
  });
});

describe('impossible dates in sendAt', () => {
  it.each([
    '2027-02-30T09:00:00+08:00',
    '2027-02-31T09:00:00+08:00',
    '2027-04-31T09:00:00+08:00',
    '2027-02-29T09:00:00+08:00',
    '2027-13-01T09:00:00+08:00',
    '2027-00-10T09:00:00+08:00',
    '2027-01-00T09:00:00+08:00',
    '2027-03-01T24:00:00+08:00',
    '2027-03-01T09:60:00+08:00',
    '2027-03-01T09:00:60+08:00',
    '2027-03-01T09:00:00+24:00',
  ])('%s: 400 naming sendAt, nothing written', async (sendAt) => {
    await expectRefused(
      () => h.api(api, '/v1/messages', json('POST', aRequest({ delayMs: undefined, sendAt }))),
      'validation_error',
      'sendAt',
    );
  });

  it('accepts 29 February of a leap year, due that very day', async () => {
    const res = await h.api(
      api,
      '/v1/messages',
      json('POST', aRequest({ delayMs: undefined, sendAt: '2028-02-29T09:00:00+08:00' })),
    );
    expect(res.status).toBe(201);
    expect(((await res.json()) as { dueAt: string }).dueAt).toBe('2028-02-29T01:00:00.000Z');
  });
});

describe('POST /v1/messages/batch with text Postgres cannot store', () => {
  it('rejects just those lines, naming the field, and stores every other line', async () => {
    const good = (n: number) =>
      JSON.stringify(aRequest({ openid: `o-batch-${n}`, message: aTextMessage(`${n}`) }));
    const lines = [
      good(1),
      good(2),
      JSON.stringify(aRequest({ message: aTextMessage(NUL) })),
      good(3),
      good(4),
      JSON.stringify(aRequest({ cancelKey: LONE_SURROGATE })),
      good(5),
      withRaw(aRequest(), '"__proto__":{}'),
      good(6),
      good(7),
    ];
    const before = await writtenRows(h.db);
    const res = await h.api(api, '/v1/messages/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    const results = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.filter((r) => r.ok === false)).toEqual([
      {
        line: 3,
        ok: false,
        error: expect.objectContaining({
          code: 'invalid_text',
          details: [expect.objectContaining({ path: 'message.text.content' })],
        }),
      },
      {
        line: 6,
        ok: false,
        error: expect.objectContaining({
          code: 'invalid_text',
          details: [expect.objectContaining({ path: 'cancelKey' })],
        }),
      },
      {
        line: 8,
        ok: false,
        error: expect.objectContaining({
          code: 'forbidden_key',
          details: [expect.objectContaining({ path: '__proto__' })],
        }),
      },
    ]);
    expect(results.at(-1)).toEqual({ summary: { lines: 10, accepted: 7, rejected: 3 } });
    expect((await writtenRows(h.db)).messages).toBe(before.messages + 7);
  });
});

describe('logging a Postgres error', () => {
  it('keeps its SQLSTATE and drops the message, detail and position, which quote the input', async () => {
    const words = 'secret words of a follower';
    const err: unknown = await h.db.pool.query('SELECT $1::jsonb', [`{"note": "${words}\\u0000"}`]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).toContain(words);
    const logged = loggableError(err);
    expect(logged).toMatchObject({ type: 'DatabaseError', sqlstate: '22P05' });
    expect(JSON.stringify(logged)).not.toContain(words);
  });
});
