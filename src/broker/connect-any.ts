import amqplib, { type ChannelModel, type SocketOptions } from 'amqplib';

/**
 * A plain (unmanaged) amqplib connection to the first of `urls` that answers, in order: for the short
 * connections that do not go through amqp-connection-manager (the plugin probe, replay-dead). Throws the
 * last node's error when none answers.
 */
export async function connectToAny(
  urls: readonly string[],
  socketOptions: SocketOptions = {},
): Promise<ChannelModel> {
  let lastError: unknown = new Error('no RabbitMQ URL configured');
  for (const url of urls) {
    try {
      return await amqplib.connect(url, socketOptions);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}
