import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Node's list of a server's connections (internal, Node 18+), and the one method used here. */
interface ConnectionsList {
  expired(headersTimeoutMs: number, requestTimeoutMs: number): { socket?: Socket }[];
}

/**
 * How often timeouts are looked for. Node's default (30 s) would let a slow body hold a socket up to 30 s
 * beyond HTTP_REQUEST_TIMEOUT_MS; checking every second keeps the cut within a second.
 */
const CHECK_INTERVAL_MS = 1000;

/** The error Node's own check hands to the socket: the server answers it 408 and closes the socket. */
function requestTimeoutError(): Error {
  return Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
}

/**
 * Applies the headers and request timeouts (408 and the socket closed; a connection that sends nothing
 * counts from its accept) as Node does, with one difference: Node judges them in the timers phase, before
 * the server has read what arrived meanwhile, so a server too busy to read for longer than a timeout (a
 * burst of requests on a loaded machine) takes its own lateness for the client's and cuts connections
 * whose whole request sits unread in the socket. Here each check waits for the next polls of the sockets
 * (setImmediate) and judges only what is still missing after them. Node's own check is turned off; on a Node
 * without the connections list this is used from, Node's check stays on.
 */
export function applyRequestTimeouts(
  server: Server,
  headersTimeoutMs: number,
  requestTimeoutMs: number,
): void {
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = requestTimeoutMs;
  server.once('listening', () => {
    const key = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connections');
    const connections = key && (server as unknown as Record<symbol, ConnectionsList | undefined>)[key];
    if (typeof connections?.expired !== 'function') return;
    // Node's check does nothing while both are 0; they are read nowhere else.
    server.headersTimeout = 0;
    server.requestTimeout = 0;
    const check = () => {
      for (const { socket } of connections.expired(headersTimeoutMs, requestTimeoutMs)) {
        // The server's own error listener answers 408 (when nothing was written yet) and destroys it.
        socket?.emit('error', requestTimeoutError());
      }
    };
    // Two polls: bytes that arrived during a long first one are read in the second.
    const afterTwoPolls = () => setImmediate(() => setImmediate(check));
    const timer = setInterval(afterTwoPolls, Math.min(CHECK_INTERVAL_MS, headersTimeoutMs));
    timer.unref();
    server.once('close', () => clearInterval(timer));
  });
}
