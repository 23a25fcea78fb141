import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { UnavailableError } from '../errors';
import { errorBody, RETRY_AFTER_S } from './error-middleware';

const OVERLOADED = JSON.stringify(
  errorBody(new UnavailableError('overloaded', 'every connection the service takes is busy')),
);

/**
 * The most of a refused request's body read before its 503 (larger than any body the service takes but a
 * batch): past it the answer goes at once and the connection is cut.
 */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * Answers a request on a connection beyond the cap: `503 overloaded` with `Retry-After`, and the connection
 * closed. The request is read to its end first (up to DRAIN_LIMIT_BYTES): a socket closed with unread bytes
 * is reset, and a reset can reach the client before the answer does.
 */
function answerOverloaded(req: IncomingMessage, res: ServerResponse): void {
  let read = 0;
  let answered = false;
  const answer = (): void => {
    if (answered) return;
    answered = true;
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(OVERLOADED),
      'Retry-After': String(RETRY_AFTER_S),
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    });
    res.end(OVERLOADED);
  };
  req.on('error', () => undefined);
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read <= DRAIN_LIMIT_BYTES) return;
    req.pause();
    answer();
    res.once('finish', () => req.socket.destroy());
  });
  req.once('end', answer);
}

/**
 * Counts `server`'s open connections and returns its request listener. A connection opened while `cap`
 * others are open first makes room by closing the one idle the longest (a keep-alive connection between
 * requests: a client's pool after a burst keeps hundreds of those open for a minute); when none is idle,
 * its request is still read and answered — `503 overloaded`, `Retry-After`, then closed — so that a client
 * always gets an answer it can act on. (Node's own `server.maxConnections` closes such a connection
 * unanswered, and the client cannot tell whether its request was taken.) A connection that has not yet
 * sent a request is not idle: one who opens many and sends nothing cannot push others out.
 */
export function capConnections(server: Server, cap: number, app: RequestListener): RequestListener {
  let open = 0;
  const overCap = new WeakSet<Socket>();
  /** Requests in flight per connection. */
  const inFlight = new WeakMap<Socket, number>();
  /** Connections between requests, the longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  /** Closed to make room: already uncounted, so that their `close` does not count them again. */
  const reclaimed = new WeakSet<Socket>();

  const reclaimIdle = (): boolean => {
    const oldest = idle.values().next();
    if (oldest.done) return false;
    const socket = oldest.value;
    idle.delete(socket);
    reclaimed.add(socket);
    open -= 1;
    socket.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    if (open >= cap && !reclaimIdle()) overCap.add(socket);
    open += 1;
    socket.once('close', () => {
      idle.delete(socket);
      if (!reclaimed.has(socket)) open -= 1;
    });
  });

  return (req, res) => {
    const socket = req.socket;
    if (overCap.has(socket)) return answerOverloaded(req, res);
    idle.delete(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (left === 0 && !socket.destroyed) idle.add(socket);
    });
    app(req, res);
  };
}
