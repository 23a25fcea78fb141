import amqplib, { type ChannelModel, type SocketOptions } from 'amqplib';
import { CONNECT_TIMEOUT_MS } from './connection';

/**
 * A plain (unmanaged) amqplib connection to the first of `urls` that answers, in order: for the short
 * connections that do not go through amqp-connection-manager (the plugin probe, replay-dead). Throws the
 * last node's error when none answers. An attempt that gets no answer within CONNECT_TIMEOUT_MS fails.
 */
export async function connectToAny(
  urls: readonly string[],
  socketOptions: SocketOptions = {},
): Promise<ChannelModel> {
  let lastError: unknown = new Error('no RabbitMQ URL configured');
  for (const url of urls) {
    try {
      return await amqplib.connect(url, { timeout: CONNECT_TIMEOUT_MS, ...socketOptions });
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}
