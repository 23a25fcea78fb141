import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import type { Config } from '../config';

/** The limits every listener of the service applies (docs/configuration.md "Configuration", HTTP_*). */
export type ServerLimits = Pick<
  Config,
  'httpRequestTimeoutMs' | 'httpHeadersTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'httpMaxConnections'
>;

export interface Listening {
  readonly server: Server;
  /** `http://host:port` with the port actually bound (port 0 picks a free one). */
  readonly url: string;
  /** Stops accepting, closes idle keep-alive connections, waits for requests in flight. */
  close(): Promise<void>;
}

/**
 * How often Node looks for requests past their timeout. Its default (30 s) would let a slow body hold a
 * socket up to 30 s beyond HTTP_REQUEST_TIMEOUT_MS; checking every second keeps the cut within a second.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * Serves `app` on `host:port` with the configured limits: a request that has not fully arrived within its
 * timeout gets 408 and its socket closed (a slow client cannot hold a socket for long), a connection that
 * sends nothing is closed after the headers timeout, idle keep-alive connections close, and connections
 * beyond the cap are refused at once.
 */
export function listen(app: Express, host: string, port: number, limits: ServerLimits): Promise<Listening> {
  const server = createServer(
    {
      requestTimeout: limits.httpRequestTimeoutMs,
      headersTimeout: limits.httpHeadersTimeoutMs,
      keepAliveTimeout: limits.httpKeepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, limits.httpHeadersTimeoutMs),
    },
    app,
  );
  server.maxConnections = limits.httpMaxConnections;
  closeSilentConnections(server, limits.httpHeadersTimeoutMs);
  return new Promise<Listening>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        server,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * Node's headers timeout starts at a request's first byte and does not reliably cover a connection that
 * never sends one (a plain Node 20 server kept such sockets open indefinitely), which would hold a place
 * under the connection cap; it is closed after `afterMs` instead.
 */
function closeSilentConnections(server: Server, afterMs: number): void {
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    // Once a byte came, Node's own headers and request timeouts apply (and answer 408).
    const timer = setTimeout(() => socket.bytesRead === 0 && socket.destroy(), afterMs);
    timers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('request', (req: { socket: Socket }) => clearTimeout(timers.get(req.socket)));
}
