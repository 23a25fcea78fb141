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

/** Polls `condition` every 20 ms until it holds or `ms` pass. */
async function waitUntil(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
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
  /** A service with HTTP_MAX_CONNECTIONS `cap`; timeouts long enough that held connections are not cut. */
  const capped = (cap: number) =>
    h.start({
      HTTP_PORT: '0',
      HTTP_MAX_CONNECTIONS: String(cap),
      HTTP_HEADERS_TIMEOUT_MS: '20000',
      HTTP_REQUEST_TIMEOUT_MS: '20000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '20000',
    });
  /** Opens `n` connections to `baseUrl` that send nothing. */
  const hold = async (baseUrl: string, n: number): Promise<Socket[]> => {
    const { hostname, port } = new URL(baseUrl);
    return Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(Number(port), hostname, () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
  };
  const release = (sockets: Socket[]) =>
    Promise.all(sockets.map((s) => new Promise((r) => (s.destroy(), s.once('close', r)))));

  /** What a client got: a status with its Retry-After and error code, or the error that replaced it. */
  interface Outcome {
    readonly status?: number;
    readonly retryAfter?: string | null;
    readonly code?: string;
    readonly error?: string;
  }
  /** Sends `n` requests at once, each free to open its own keep-alive connection. */
  const burst = (baseUrl: string, n: number): Promise<Outcome[]> =>
    Promise.all(
      Array.from({ length: n }, async (_, i): Promise<Outcome> => {
        // Every other one a POST with a body, read to its end before a 503 is answered.
        const init: RequestInit =
          i % 2 === 0
            ? {}
            : {
                method: 'POST',
                headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
                body: JSON.stringify({ appId: APP_ID, cancelKey: `k${i}`, reason: 'x'.repeat(400) }),
              };
        try {
          const res = await fetch(`${baseUrl}${i % 2 === 0 ? '/healthz' : '/v1/cancellations'}`, init);
          const body = (await res.json()) as { error?: { code: string } };
          return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code };
        } catch (err) {
          const e = err as Error & { cause?: Error };
          return { error: `${e.message}: ${e.cause?.message ?? ''}` };
        }
      }),
    );
  const answered = (o: Outcome) =>
    o.status === 200 ||
    o.status === 201 ||
    (o.status === 503 && o.retryAfter === '1' && o.code === 'overloaded');

  it('answers a request on a connection beyond HTTP_MAX_CONNECTIONS with a whole 503 overloaded and Retry-After, and serves again when one is freed', async () => {
    const service = await capped(2);
    const held = await hold(service.url!, 2);
    // The server accepts in order, so it counts both before this one.
    const refused = await sendAndWait(service.url!, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
    expect(refused.closedAfterMs).not.toBeNull();
    expect(refused.received).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.received).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(refused.received).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(refused.received.slice(refused.received.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'overloaded', message: 'temporarily unavailable; try again shortly' },
    });
    await release(held.slice(0, 1));
    const status = await fetch(`${service.url}/healthz`, { headers: { connection: 'close' } }).then(
      (r) => r.status,
    );
    expect(status).toBe(200);
    await release(held.slice(1));
  });

  /** A keep-alive connection that has had one request answered and now waits, idle. */
  const idleKeepAlive = async (baseUrl: string) => {
    const { hostname, port } = new URL(baseUrl);
    const socket = connect(Number(port), hostname);
    const state = { received: '', closed: false };
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => (state.received += d.toString()));
    socket.on('close', () => (state.closed = true));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const deadline = Date.now() + 10_000;
    while (!state.received.includes('"ok"') && !state.closed && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(state.received).toMatch(/^HTTP\/1\.1 200 /);
    return { socket, state };
  };

  it('makes room by closing the connection idle the longest: idle keep-alive connections never shut a new request out', async () => {
    const service = await capped(2);
    const oldest = await idleKeepAlive(service.url!);
    const newer = await idleKeepAlive(service.url!);
    const third = await sendAndWait(
      service.url!,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      5000,
    );
    expect(third.received).toMatch(/^HTTP\/1\.1 200 /);
    await waitUntil(() => oldest.state.closed, 5000);
    expect({ oldest: oldest.state.closed, newer: newer.state.closed }).toEqual({
      oldest: true,
      newer: false,
    });
    newer.socket.destroy();
  });

  it('never closes a busy connection to make room: one opened and not yet used is not idle', async () => {
    const service = await capped(2);
    const kept = await idleKeepAlive(service.url!);
    const [fresh] = await hold(service.url!, 1);
    // The idle one makes room for this one; then the two left are busy, and the next is refused.
    const admitted = await sendAndWait(service.url!, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 1000);
    expect(admitted.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(kept.state.closed).toBe(true);
    const [busy] = await hold(service.url!, 1);
    const refused = await sendAndWait(service.url!, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
    expect(refused.received).toMatch(/^HTTP\/1\.1 503 /);
    expect(fresh.destroyed || busy.destroyed).toBe(false);
    await release([fresh, busy]);
  });

  it('reads at most 1 MiB of a refused request: a larger body gets its 503 before it is all sent', async () => {
    const service = await capped(1);
    const held = await hold(service.url!, 1);
    const { hostname, port } = new URL(service.url!);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => (received += d.toString()));
    // 8 MiB announced, 2 MiB sent, then nothing: a server that read to the end would never answer.
    socket.write(
      'POST /v1/messages/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n' +
        `Content-Length: ${8 * 1024 * 1024}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(2 * 1024 * 1024, 0x20));
    await waitUntil(() => received.includes('\r\n\r\n'), 10_000);
    expect(received).toMatch(/^HTTP\/1\.1 503 [^]*\r\nRetry-After: 1\r\n/);
    socket.destroy();
    await release(held);
  });

  it('never drops a request: a burst of keep-alive requests beyond the cap each gets its answer or a 503 with Retry-After', async () => {
    const CAP = 4;
    const service = await capped(CAP);
    const held = await hold(service.url!, CAP);
    const whileFull = await burst(service.url!, 60);
    expect(whileFull.filter((o) => !(o.status === 503 && answered(o)))).toEqual([]);
    await release(held);
    // Now some fit and some do not: every one is answered either way, none is reset or closed unanswered.
    const mixed = await burst(service.url!, 200);
    expect(mixed.filter((o) => !answered(o))).toEqual([]);
    expect(mixed.filter((o) => o.status !== 503).length).toBeGreaterThan(0);
  });
});

describe('keep-alive', () => {
  it('an idle keep-alive connection outlives the idle time of common clients: reused after 7 s, it is still served', async () => {
    // HTTP_KEEP_ALIVE_TIMEOUT_MS at its default. Clients close idle connections after their own timeout
    // (undici 4 s, or the server's Keep-Alive hint less 1 s) — on a busy machine, late: a server that closed
    // first would cut the request a client sent at that moment.
    const service = await h.start({ HTTP_PORT: '0', HTTP_KEEP_ALIVE_TIMEOUT_MS: '' });
    const { hostname, port } = new URL(service.url!);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    let received = '';
    let closed = false;
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => (closed = true));
    const get = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    socket.write(get);
    const deadline = Date.now() + 10_000;
    while (!received.includes('\r\n\r\n') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(received).toMatch(/^HTTP\/1\.1 200 [^]*\r\nKeep-Alive: timeout=65\r\n/i);
    // Idle for longer than the former default (5 s, which Node 20 stretches to 6 s) kept the connection.
    await new Promise((r) => setTimeout(r, 7000));
    received = '';
    if (!closed) socket.write(get);
    const again = Date.now() + 10_000;
    while (!closed && !received.includes('\r\n\r\n') && Date.now() < again) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect({ closed, answer: received.slice(0, 15) }).toEqual({ closed: false, answer: 'HTTP/1.1 200 OK' });
    socket.destroy();
  }, 30_000);
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
