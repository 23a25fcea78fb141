import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Config } from '../config';
import { requestListenerOf } from './answer-first';
import { capConnections } from './connection-cap';
import { applyRequestTimeouts } from './request-timeouts';

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
 * Serves `app` on `host:port` with the configured limits: a request that has not fully arrived within its
 * timeout gets 408 and its socket closed (a slow client cannot hold a socket for long), a connection that
 * sends nothing is closed after the headers timeout, idle keep-alive connections close (after longer than
 * clients keep theirs: docs/operations.md "HTTP limits"), and a request on a connection beyond the cap is
 * answered 503 with Retry-After.
 */
export function listen(app: Express, host: string, port: number, limits: ServerLimits): Promise<Listening> {
  const server = createServer({ keepAliveTimeout: limits.httpKeepAliveTimeoutMs });
  applyRequestTimeouts(server, limits.httpHeadersTimeoutMs, limits.httpRequestTimeoutMs);
  server.on('request', capConnections(server, limits.httpMaxConnections, requestListenerOf(app)));
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
