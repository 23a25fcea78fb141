import amqp, { type AmqpConnectionManager, type Channel } from 'amqp-connection-manager';
import type { Logger } from '../logger';
import { loggableError } from '../loggable-error';

export type { AmqpConnectionManager, Channel };

const HEARTBEAT_S = 5;
const RECONNECT_DELAY_S = 1;
/**
 * How long one connection attempt (TCP connect and AMQP handshake) may take before it is abandoned and
 * tried again. Without it a broker that accepts the socket but never answers the handshake (busy, or
 * still booting) holds the attempt forever and the process never connects.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A managed, self-reconnecting connection. Channels created from it re-run their setup functions on every
 * reconnect, so setups must be idempotent. With several URLs (the nodes of a cluster) each reconnect
 * tries the next one, so a process moves to a surviving node.
 */
export function createBrokerConnection(
  urls: readonly string[],
  logger: Logger,
  name: string,
  { connectTimeoutMs = CONNECT_TIMEOUT_MS }: { connectTimeoutMs?: number } = {},
): AmqpConnectionManager {
  const connection = amqp.connect([...urls], {
    heartbeatIntervalInSeconds: HEARTBEAT_S,
    reconnectTimeInSeconds: RECONNECT_DELAY_S,
    connectionOptions: { clientProperties: { connection_name: name }, timeout: connectTimeoutMs },
  });
  connection.on('connect', () => logger.info({ connection: name }, 'rabbitmq connected'));
  connection.on('disconnect', ({ err }) =>
    logger.warn({ connection: name, err: err && loggableError(err) }, 'rabbitmq disconnected; reconnecting'),
  );
  connection.on('connectFailed', ({ err }) =>
    logger.warn({ connection: name, err: err && loggableError(err) }, 'rabbitmq connect failed; retrying'),
  );
  return connection;
}

/**
 * amqp-connection-manager does not recreate a channel the server closed while the connection stays up
 * (its issues #347 / #230): it waits for the next reconnect. Forcing one restores the channel and its
 * consumers. Call from every setup function.
 */
export function reconnectOnChannelError(
  channel: Channel,
  connection: AmqpConnectionManager,
  logger: Logger,
  name: string,
): void {
  channel.on('error', (err: Error) => {
    logger.warn(
      { channel: name, err: loggableError(err) },
      'rabbitmq channel closed by the server; reconnecting',
    );
    connection.reconnect();
  });
}
