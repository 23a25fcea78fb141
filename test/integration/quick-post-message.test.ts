import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { loadConfig } from '../../src/config';
import { type AppDeps, createApp } from '../../src/http/create-app';
import { listen, type Listening } from '../../src/http/listen';
import type { ScheduleWriter } from '../../src/scheduling/schedule-writer';
import type { Message, NewMessage } from '../../src/store/message-store';
import { silentLogger } from '../helpers/logger';
import type { ApiKey } from '../../src/access/principal';
import type { KeyOperation } from '../../src/contract';

// POST /v1/messages is answered before express for the requests producers send (quick-post-message.ts).
// The same requests go to the service as it listens and to the same app served by express alone: every
// answer — status, header names in order and their values, body — must be the same.
const RUNS = Number(process.env.QUICK_POST_RUNS ?? 300);
const APP_ID = 'wx0000000000000001';
const TOKEN = 'a-very-long-admin-token';
const CREATED_AT = new Date('2026-01-01T00:00:00Z');
/** An account API keys below may not use: to them it is not there (docs/api.md "API keys"). */
const OTHER_APP = 'wx0000000000000002';
const SCHEDULER_KEY = `wdk_${'s'.repeat(43)}`;
const READER_KEY = `wdk_${'r'.repeat(43)}`;
const aKey = (id: string, operations: KeyOperation[]): ApiKey => ({
  id,
  name: id,
  appIds: new Set([APP_ID]),
  operations: new Set(operations),
});
const KEYS = new Map([
  [SCHEDULER_KEY, aKey('scheduler', ['schedule'])],
  [READER_KEY, aKey('reader', ['read'])],
]);

/** A writer that stores nothing: it answers as the database would, and fails on the openids that ask it. */
const aWriter = (): ScheduleWriter => {
  const byKey = new Map<string, Message>();
  return {
    write: async (messages: readonly NewMessage[]) => {
      await new Promise((resolve) => setImmediate(resolve));
      const created: Message[] = [];
      const existing: Message[] = [];
      for (const m of messages) {
        if (m.openid === 'o-boom') throw new Error('boom');
        if (m.openid === 'o-db-down')
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        const row: Message = {
          ...m,
          status: 'queued',
          statusReason: null,
          attempts: 0,
          createdAt: CREATED_AT,
          updatedAt: CREATED_AT,
          sentAt: null,
          noticeResult: null,
          deliveryReport: null,
        } as Message;
        const key = `${m.appId} ${m.idempotencyKey}`;
        const prior = m.idempotencyKey ? byKey.get(key) : undefined;
        if (prior) existing.push(prior);
        else {
          if (m.idempotencyKey) byKey.set(key, row);
          created.push(row);
        }
      }
      return { inserted: { created, existing, toPublish: [], outboxId: null }, published: Promise.resolve() };
    },
  };
};

function anApp() {
  const config = loadConfig({
    ADMIN_TOKEN: TOKEN,
    WECHAT_ACCOUNTS: JSON.stringify([{ appId: APP_ID, secret: 's' }]),
    ACCOUNTS_ENCRYPTION_KEY: Buffer.alloc(32, 'quick').toString('base64'),
    HTTP_BODY_LIMIT_BYTES: '2048',
  });
  const unused = new Proxy({}, { get: () => undefined });
  const deps = {
    config,
    logger: silentLogger,
    connect: null,
    accounts: { get: (appId: string) => (appId === APP_ID || appId === OTHER_APP ? {} : undefined) },
    keys: { find: (token: string) => KEYS.get(token), isLoaded: () => true },
    box: unused,
    pool: unused,
    publisher: { horizonMs: 0 },
    metrics: { scheduled: { inc: () => undefined }, cancelled: { inc: () => undefined } },
    writer: aWriter(),
    templates: unused,
    track: () => undefined,
    readiness: () => Promise.resolve({ ready: true, checks: {} }),
    processPushLater: () => undefined,
    exchangeCodeLater: () => undefined,
  } as unknown as AppDeps;
  return { app: createApp(deps), config };
}

interface Sent {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** Sent chunked (no Content-Length). */
  readonly chunked: boolean;
}

interface Answer {
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

function send(port: number, r: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...r.headers };
    if (!r.chunked) headers['content-length'] = String(r.body.length);
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: r.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const pairs: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            pairs.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
          resolve({
            status: res.statusCode ?? 0,
            headers: pairs,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    if (r.chunked) req.write(r.body);
    req.end(r.chunked ? undefined : r.body);
  });
}

/** What may differ between two answers to the same request: the time, and ids made up for it. */
function comparable(a: Answer, sentId: boolean): Answer {
  const random = (name: string) => name === 'date' || (!sentId && name === 'x-request-id');
  const body = a.body
    .replace(/"(id|existingId|dueAt)":"[^"]*"/g, '"$1":"…"')
    .replace(/"requestId":"[^"]*"/g, sentId ? '$&' : '"requestId":"…"');
  return { ...a, headers: a.headers.map(([n, v]) => [n, random(n) ? '…' : v]), body };
}

const valid = { appId: APP_ID, openid: 'o-1', message: { msgtype: 'text', text: { content: 'hello' } } };
const bodies = fc.oneof(
  fc.constantFrom<unknown>(
    valid,
    { ...valid, sendAt: '2030-01-01T00:00:00Z' },
    { ...valid, idempotencyKey: 'k-1' },
    { ...valid, idempotencyKey: 'k-1', openid: 'o-2' },
    { ...valid, openid: 'o-boom' },
    { ...valid, openid: 'o-db-down' },
    { ...valid, appId: 'wx-unknown' },
    { ...valid, appId: OTHER_APP },
    { ...valid, message: { msgtype: 'text', text: { content: 'x\u0000y' } } },
    { ...valid, message: JSON.parse('{"__proto__": {"x": 1}}') as unknown },
    { ...valid, cancelKey: '\ud800' },
    { ...valid, sendAt: '2026-02-30T00:00:00Z' },
    { ...valid, extra: 1 },
    [valid],
    'a string',
    42,
    null,
  ),
  fc.record({
    appId: fc.constant(APP_ID),
    openid: fc.string({ maxLength: 6 }),
    message: fc.object({ maxDepth: 2 }),
  }),
);
/** The body's bytes: JSON, or JSON cut short, with a BOM, padded, empty, too large, or not UTF-8. */
const payloads = fc.oneof(
  { weight: 6, arbitrary: bodies.map((b) => Buffer.from(JSON.stringify(b))) },
  {
    weight: 4,
    arbitrary: fc.tuple(bodies, fc.nat()).map(([b, n]) => {
      const text = JSON.stringify(b);
      return Buffer.from(text.slice(0, n % (text.length + 1)));
    }),
  },
  { weight: 1, arbitrary: bodies.map((b) => Buffer.from(`\ufeff${JSON.stringify(b)}`)) },
  { weight: 1, arbitrary: bodies.map((b) => Buffer.from(` \n\t${JSON.stringify(b)} `)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.alloc(0),
      Buffer.from('   '),
      Buffer.from('"{}"'),
      Buffer.from('{"a":1}{'),
      Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]),
      Buffer.from(JSON.stringify({ ...valid, message: { text: 'x'.repeat(3000) } })),
    ),
  },
);
const headerSets = fc.record(
  {
    // Refused tokens are rare: twenty a minute block the address (a test of its own below).
    authorization: fc.oneof(
      { weight: 150, arbitrary: fc.constantFrom(`Bearer ${TOKEN}`, `bearer  ${TOKEN}`) },
      { weight: 50, arbitrary: fc.constantFrom(`Bearer ${SCHEDULER_KEY}`, `Bearer ${READER_KEY}`) },
      { weight: 1, arbitrary: fc.constantFrom('Bearer wrong', 'Basic x') },
    ),
    'content-type': fc.constantFrom(
      'application/json',
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json; charset=latin1',
      'text/plain',
      'application/vnd.api+json',
    ),
    'x-request-id': fc.constantFrom('req-1', 'bad id with spaces'),
    'content-encoding': fc.constantFrom('identity', 'gzip'),
  },
  { requiredKeys: ['authorization', 'content-type'] },
);
/** Mostly the headers producers send, which the quick route takes. */
const headerSetsMostlyPlain: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 1, arbitrary: headerSets },
  {
    weight: 2,
    arbitrary: fc.constant({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }),
  },
);
const requests = fc.record({
  path: fc.oneof(
    { weight: 6, arbitrary: fc.constant('/v1/messages') },
    { weight: 2, arbitrary: fc.constantFrom('/v1/messages?x=1', '/V1/messages', '/v1/messages/') },
  ),
  headers: headerSetsMostlyPlain,
  body: payloads,
  chunked: fc.constantFrom(false, false, false, false, false, false, false, true),
});

describe('POST /v1/messages before express', () => {
  let quick: Listening;
  let plain: Server;
  let plainPort: number;
  /** Requests the quick listener's express app was handed. */
  let reachedExpress = 0;

  beforeAll(async () => {
    const served = anApp();
    const app = served.app as typeof served.app & { handle: (...args: unknown[]) => void };
    const handle = app.handle.bind(app);
    app.handle = (...args) => {
      reachedExpress++;
      handle(...args);
    };
    quick = await listen(served.app, '127.0.0.1', 0, served.config);
    plain = createServer(anApp().app);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    plainPort = (plain.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await quick.close();
    await new Promise((resolve) => plain.close(resolve));
  });

  it('answers a valid request 201 with the message, and the same key again 200, without express', async () => {
    const port = Number(new URL(quick.url).port);
    const before = reachedExpress;
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'x-request-id': 'r-7',
    };
    const first = await send(port, {
      path: '/v1/messages',
      headers,
      body: Buffer.from(JSON.stringify({ ...valid, idempotencyKey: 'once' })),
      chunked: false,
    });
    const again = await send(port, {
      path: '/v1/messages',
      headers,
      body: Buffer.from(JSON.stringify({ ...valid, idempotencyKey: 'once' })),
      chunked: false,
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(first.headers.map(([n]) => n).slice(0, 4)).toEqual([
      'x-content-type-options',
      'x-request-id',
      'content-type',
      'content-length',
    ]);
    expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
    expect(reachedExpress).toBe(before);
  });

  it("takes an API key that may schedule for its own account; another account's is a 400, a key that may not a 403", async () => {
    const port = Number(new URL(quick.url).port);
    const post = (key: string, body: object) =>
      send(port, {
        path: '/v1/messages',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(body)),
        chunked: false,
      });
    const before = reachedExpress;
    const mine = await post(SCHEDULER_KEY, valid);
    expect(mine.status).toBe(201);
    expect(reachedExpress).toBe(before);
    const theirs = await post(SCHEDULER_KEY, { ...valid, appId: OTHER_APP });
    expect(theirs.status).toBe(400);
    expect(JSON.parse(theirs.body).error.details).toEqual([
      expect.objectContaining({ path: 'appId', message: `no account ${OTHER_APP} is configured` }),
    ]);
    expect((await post(TOKEN, { ...valid, appId: OTHER_APP })).status).toBe(201);
    const reader = await post(READER_KEY, valid);
    expect(reader.status).toBe(403);
    expect(JSON.parse(reader.body).error.code).toBe('forbidden');
    expect(reachedExpress).toBe(before + 1);
  });

  it('answers every request as express alone answers it: status, headers in order, body', async () => {
    const quickPort = Number(new URL(quick.url).port);
    const before = reachedExpress;
    await fc.assert(
      fc.asyncProperty(requests, async (r) => {
        const [a, b] = await Promise.all([send(quickPort, r), send(plainPort, r)]);
        const sentId = r.headers['x-request-id'] === 'req-1';
        expect(comparable(a, sentId)).toEqual(comparable(b, sentId));
      }),
      { numRuns: RUNS },
    );
    // Both ways were taken, each many times.
    expect(reachedExpress - before).toBeGreaterThan(RUNS / 5);
    expect(reachedExpress - before).toBeLessThan((RUNS * 4) / 5);
  });

  it('blocks an address after twenty refused tokens, as express does, valid token or not', async () => {
    const ports = [Number(new URL(quick.url).port), plainPort];
    const attempt = (port: number, token: string) =>
      send(port, {
        path: '/v1/messages',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-request-id': 'r',
        },
        body: Buffer.from(JSON.stringify(valid)),
        chunked: false,
      });
    for (const port of ports) for (let i = 0; i < 25; i++) await attempt(port, 'wrong');
    const [a, b] = await Promise.all(ports.map((port) => attempt(port, TOKEN)));
    expect(a.status).toBe(429);
    expect(comparable(a, true)).toEqual(comparable(b, true));
  });
});
