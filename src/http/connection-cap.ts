import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { UnavailableError } from '../errors';
import { errorBody, RETRY_AFTER_S } from './error-middleware';

const OVERLOADED = JSON.stringify(
  errorBody(
    new UnavailableError(
      'overloaded',
      'the service has too many open connections; try again after Retry-After seconds',
    ),
  ),
);

/**
 * Answers a request on a connection beyond the cap: `503 overloaded` with `Retry-After`, and the connection
 * closed. The request is read to its end first: a socket closed with unread bytes is reset, and a reset can
 * reach the client before the answer does.
 */
function answerOverloaded(req: IncomingMessage, res: ServerResponse): void {
  req.on('error', () => undefined);
  req.once('end', () => {
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(OVERLOADED),
      'Retry-After': String(RETRY_AFTER_S),
      'X-Content-Type-Options': 'nosniff',
      Connection: 'close',
    });
    res.end(OVERLOADED);
  });
  req.resume();
}

/**
 * Counts `server`'s open connections and returns its request listener: a connection opened while `cap`
 * others are open still has its request read and answered — `503 overloaded`, `Retry-After`, then closed —
 * so that a client always gets an answer it can act on; the others reach `app`. (Node's own
 * `server.maxConnections` closes such a connection unanswered, and the client cannot tell whether its
 * request was taken.)
 */
export function capConnections(server: Server, cap: number, app: RequestListener): RequestListener {
  let open = 0;
  const overCap = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    if (open >= cap) overCap.add(socket);
    open += 1;
    socket.once('close', () => (open -= 1));
  });
  return (req, res) => (overCap.has(req.socket) ? answerOverloaded(req, res) : app(req, res));
}
