import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake webhook received. */
export interface ReceivedPush {
  readonly url: string;
  readonly contentType: string;
  readonly body: string;
}

/** A stand-in for the service's webhook: records every request and answers as told. */
export interface FakeWebhook {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Requests in arrival order; `reset()` empties it. */
  readonly received: ReceivedPush[];
  /** What every request is answered with from now on. */
  answer: { status: number; body: string };
  reset(): void;
  close(): Promise<void>;
}

/** Starts a fake webhook on a free local port, answering 200 `success` (WeChat's expected reply). */
export async function startFakeWebhook(): Promise<FakeWebhook> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hook.received.push({
        url: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(hook.answer.status, { 'content-type': 'text/plain' }).end(hook.answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const hook: FakeWebhook = {
    url: `http://127.0.0.1:${port}`,
    received: [],
    answer: { status: 200, body: 'success' },
    reset() {
      hook.received.length = 0;
      hook.answer = { status: 200, body: 'success' };
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return hook;
}

/** A local port nobody listens on (any more): deliveries to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
