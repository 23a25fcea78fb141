import { createServer } from 'node:net';

/**
 * Ports are taken from below Linux's ephemeral range (32768–60999 by default): a port found free there
 * can be taken, before the test's process binds it, by any outgoing connection's local port (Postgres,
 * RabbitMQ and HTTP clients open hundreds while test files run in parallel). Below it only another
 * listener can take it, and each candidate is tried by listening on it.
 */
const LOWEST = 20_000;
const SPAN = 12_000;

/** A TCP port on 127.0.0.1 nobody listens on right now, outside the range outgoing connections use. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * SPAN);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found in ${LOWEST}–${LOWEST + SPAN - 1} after 50 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
