import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy to `target` whose client-to-server direction can be stalled: after `stall()`, what a client
 * writes (an AMQP publish, say) stays in its socket and never reaches the server, while the server's side
 * still flows. Models a process that dies with its publishes unsent.
 */
export async function createStallableProxy(target: { host: string; port: number }): Promise<{
  readonly port: number;
  stall(): void;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let stalled = false;
  const server = createTcpServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    clients.add(client);
    client.on('close', () => {
      clients.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => client.write(d));
    if (stalled) client.pause();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    stall() {
      stalled = true;
      for (const c of clients) c.pause();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * An HTTP load balancer on `port` in front of `upstreams` (base URLs). The k-th request for the same URL
 * goes to upstream k mod n, so the repeats of one webhook push (same signature, same nonce) alternate
 * between the api processes, as they may behind a real load balancer.
 */
export async function createRoundRobinProxy(
  port: number,
  upstreams: readonly string[],
): Promise<{ readonly perUpstream: number[]; close(): Promise<void> }> {
  const seen = new Map<string, number>();
  const perUpstream = upstreams.map(() => 0);
  const server = createHttpServer((req, res) => {
    const url = req.url ?? '/';
    const k = seen.get(url) ?? 0;
    seen.set(url, k + 1);
    const i = k % upstreams.length;
    perUpstream[i]++;
    const forward = httpRequest(
      new URL(url, upstreams[i]),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    perUpstream,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
