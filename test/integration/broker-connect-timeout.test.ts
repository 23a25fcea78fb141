import { connect, createServer, type Server, type Socket } from 'node:net';
import { connectToAny } from '../../src/broker/connect-any';
import { CONNECT_TIMEOUT_MS, createBrokerConnection } from '../../src/broker/connection';
import { TEST_RABBITMQ_URL } from '../helpers/broker';
import { freePort } from '../helpers/free-port';
import { waitFor } from '../helpers/harness';
import { silentLogger } from '../helpers/logger';

/**
 * A front for the machine's broker that accepts the first `swallow` connections and never answers them
 * (a broker busy or still booting), and forwards every later one.
 */
async function stallingFront(
  swallow: number,
): Promise<{ url: string; accepted: () => number; close(): Promise<void> }> {
  const target = new URL(TEST_RABBITMQ_URL);
  const sockets: Socket[] = [];
  let accepted = 0;
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    accepted++;
    if (accepted <= swallow) return;
    const upstream = connect(Number(target.port || 5672), target.hostname);
    sockets.push(upstream);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = new URL(TEST_RABBITMQ_URL);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a broker that accepts the connection and never answers the handshake', () => {
  it('holds the managed connection only for the connect timeout: the next attempt connects', async () => {
    const front = await stallingFront(1);
    const connection = createBrokerConnection([front.url], silentLogger, 'connect-timeout test', {
      connectTimeoutMs: 1000,
    });
    try {
      expect(await waitFor(() => connection.isConnected(), 20_000)).toBe(true);
      expect(front.accepted()).toBeGreaterThanOrEqual(2);
    } finally {
      await connection.close();
      await front.close();
    }
  });

  it('fails a one-off connection (the plugin probe, replay-dead) after the connect timeout rather than waiting forever', async () => {
    const front = await stallingFront(Infinity);
    try {
      const started = Date.now();
      await expect(connectToAny([front.url])).rejects.toThrow(/ETIMEDOUT/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 100);
      expect(Date.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + 10_000);
    } finally {
      await front.close();
    }
  }, 40_000);
});
