/**
 * The limits every listener applies (HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS,
 * HTTP_KEEP_ALIVE_TIMEOUT_MS, HTTP_MAX_CONNECTIONS) and the headers on every response, seen from a raw
 * TCP client as a slow or hostile one would talk.
 */
import { connect, type Socket } from 'node:net';
import type { Service } from '../../src/main/start-service';
import { ADMIN_TOKEN, APP_ID, createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let api: Service;
/** Small limits, so that a cut shows within seconds. */
const LIMITS = {
  HTTP_REQUEST_TIMEOUT_MS: '1500',
  HTTP_HEADERS_TIMEOUT_MS: '1000',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
};
/** A limit plus Node's one-second check interval and slack for a busy machine. */
const CUT_WITHIN_MS = 1500 + 1000 + 1500;

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api', ...LIMITS });
  api = await h.start();
}, 60_000);
afterAll(() => h.close());

interface Ended {
  /** Everything the server sent before the socket closed. */
  readonly received: string;
  /** Milliseconds from the last byte the client sent to the close, or null when it stayed open. */
  readonly closedAfterMs: number | null;
}

/** Opens a socket to `baseUrl`, sends `chunk` (possibly nothing), then waits for the server to close it. */
function sendAndWait(baseUrl: string, chunk: string, waitMs: number): Promise<Ended> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let received = '';
    let sentAt = Date.now();
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ received, closedAfterMs: null });
    }, waitMs);
    socket.on('connect', () => {
      if (chunk) socket.write(chunk, () => (sentAt = Date.now()));
    });
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ received, closedAfterMs: Date.now() - sentAt });
    });
  });
}

const slowBody = (path: string, extraHeaders = '') =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n` +
  `${extraHeaders}\r\n{"appId":"${APP_ID}",`;

describe('a slow or silent client', () => {
  it('that sends headers and part of a /v1 body, then nothing, gets 408 and its socket closed within the request timeout', async () => {
    const ended = await sendAndWait(
      api.url!,
      slowBody('/v1/messages', `Authorization: Bearer ${ADMIN_TOKEN}\r\n`),
      CUT_WITHIN_MS + 5000,
    );
    expect(ended.closedAfterMs).not.toBeNull();
    expect(ended.closedAfterMs!).toBeLessThan(CUT_WITHIN_MS);
    expect(ended.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('that trickles a webhook push body is cut the same way', async () => {
    const ended = await sendAndWait(api.url!, slowBody(`/wechat/${APP_ID}`), CUT_WITHIN_MS + 5000);
    expect(ended.closedAfterMs).not.toBeNull();
    expect(ended.closedAfterMs!).toBeLessThan(CUT_WITHIN_MS);
  });

  it('that sends half its headers is cut within the headers timeout, on the public and the ops listener', async () => {
    for (const base of [api.url!, api.opsUrl]) {
      const ended = await sendAndWait(base, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', CUT_WITHIN_MS + 5000);
      expect({ base, cut: ended.closedAfterMs !== null && ended.closedAfterMs < CUT_WITHIN_MS }).toEqual({
        base,
        cut: true,
      });
      expect(ended.received).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('that connects and sends nothing is closed within the headers timeout, however many do', async () => {
    const silent = await Promise.all(
      Array.from({ length: 20 }, () => sendAndWait(api.url!, '', CUT_WITHIN_MS + 5000)),
    );
    expect(silent.filter((e) => e.closedAfterMs === null || e.closedAfterMs >= CUT_WITHIN_MS)).toEqual([]);
    // Closed with no answer, or with Node's 408 when its own check saw the connection first.
    for (const e of silent) expect(e.received).toMatch(/^(HTTP\/1\.1 408 [^]*)?$/);
  });

  it('that keeps an idle keep-alive connection open has it closed after the keep-alive timeout', async () => {
    const ended = await sendAndWait(
      api.url!,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n',
      CUT_WITHIN_MS + 5000,
    );
    expect(ended.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(ended.closedAfterMs).not.toBeNull();
    expect(ended.closedAfterMs!).toBeLessThan(CUT_WITHIN_MS);
  });
});

describe('the connection cap', () => {
  it('closes connections beyond HTTP_MAX_CONNECTIONS at once, and serves again when one is freed', async () => {
    // Timeouts long enough that the held connections, silent on purpose, are not cut during the test.
    const capped = await h.start({
      HTTP_PORT: '0',
      HTTP_MAX_CONNECTIONS: '2',
      HTTP_HEADERS_TIMEOUT_MS: '20000',
      HTTP_REQUEST_TIMEOUT_MS: '20000',
    });
    const { hostname, port } = new URL(capped.url!);
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const s = connect(Number(port), hostname, () => resolve(s));
        s.on('error', () => undefined);
      });
    const held = [await open(), await open()];
    // The server accepts in order, so it counts both before this one, which it closes with no answer.
    const refused = await sendAndWait(capped.url!, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
    expect(refused).toMatchObject({ received: '' });
    expect(refused.closedAfterMs).not.toBeNull();
    held[0].destroy();
    await new Promise((r) => held[0].once('close', r));
    let status = 0;
    const deadline = Date.now() + 5000;
    while (status !== 200 && Date.now() < deadline) {
      status = await fetch(`${capped.url}/healthz`, { headers: { connection: 'close' } }).then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).toBe(200);
    held[1].destroy();
  });
});

describe('X-Content-Type-Options: nosniff', () => {
  const sniffed = async (url: string, init?: RequestInit) => {
    const res = await fetch(url, init);
    return { status: res.status, nosniff: res.headers.get('x-content-type-options') };
  };

  it('is on a 200, a 404, a 400, a webhook answer, an /admin asset and the ops listener', async () => {
    const answers = {
      ok: await sniffed(`${api.url}/healthz`),
      notFound: await sniffed(`${api.url}/no-such-route`),
      badRequest: await sniffed(`${api.url}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: '{"appId":',
      }),
      webhook: await sniffed(`${api.url}/wechat/${APP_ID}?signature=0&timestamp=0&nonce=0&echostr=1`),
      adminAsset: await sniffed(`${api.url}/admin/index.html`),
      opsMetrics: await sniffed(`${api.opsUrl}/metrics`),
      opsNotFound: await sniffed(`${api.opsUrl}/nope`),
    };
    expect(answers).toEqual({
      ok: { status: 200, nosniff: 'nosniff' },
      notFound: { status: 404, nosniff: 'nosniff' },
      badRequest: { status: 400, nosniff: 'nosniff' },
      webhook: { status: expect.any(Number), nosniff: 'nosniff' },
      adminAsset: { status: 200, nosniff: 'nosniff' },
      opsMetrics: { status: 200, nosniff: 'nosniff' },
      opsNotFound: { status: 404, nosniff: 'nosniff' },
    });
    expect(answers.webhook.status).toBeGreaterThanOrEqual(400);
  });
});
