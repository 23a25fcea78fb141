import type { Channel as AmqpChannel } from 'amqplib';
import type { Logger } from '../logger';
import { type AmqpConnectionManager, type Channel, reconnectOnChannelError } from '../broker/connection';
import { type BrokerNames, declareCore } from '../broker/topology';
import { createDelivery, type Delivery } from './ack-tracker';
import { createBatcher } from './batcher';
import { createHold } from './hold';
import { loggableError } from '../loggable-error';

export interface DueConsumer {
  start(): Promise<void>;
  /** Stops taking new wake-ups; the ones in hand stay unacknowledged (and are redelivered if we die). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /**
   * Cancels consumption, requeues what was not started (held until due, or waiting for a batch), waits for
   * the batches in hand, closes the channel.
   */
  stop(): Promise<void>;
  readonly paused: boolean;
}

/**
 * Consumes the due queue with a bounded prefetch, holds a wake-up that came early (up to `maxHoldMs`)
 * until its due time, and hands wake-ups over in batches (up to `batchSize` messages — wake-ups carry
 * several — waiting at most `batchWaitMs` for one to fill). Each delivery is settled on the channel it
 * came on (see `createDelivery`).
 */
export function createDueConsumer(deps: {
  connection: AmqpConnectionManager;
  names: BrokerNames;
  prefetch: number;
  batchSize: number;
  batchWaitMs: number;
  /** A wake-up due at most this far ahead is held until due (the transport's `earlyMs`). */
  maxHoldMs: number;
  /** Batches handled at once; the rest of the prefetched wake-ups wait unclaimed. */
  maxConcurrentBatches: number;
  /** Handles a batch; `stopping()` turns true once stop() was called (hand back what is not started). */
  onBatch: (batch: Delivery[], stopping: () => boolean) => Promise<void>;
  logger: Logger;
}): DueConsumer {
  const { connection, names, logger } = deps;
  let started = false;
  let paused = false;
  let current: { channel: AmqpChannel; consumerTag: string | null } | null = null;
  const batcher = createBatcher({
    batchSize: deps.batchSize,
    batchWaitMs: deps.batchWaitMs,
    maxConcurrentBatches: deps.maxConcurrentBatches,
    onBatch: deps.onBatch,
    logger,
  });
  const hold = createHold({ maxHoldMs: deps.maxHoldMs, release: (d) => batcher.add(d) });

  async function consumeOn(channel: AmqpChannel): Promise<void> {
    let tag: string | null = null;
    const { consumerTag } = await channel.consume(names.due, (msg) => {
      if (!msg) return void cancelledByBroker(channel, tag);
      const delivery = createDelivery(channel, msg, logger);
      if (!started) return delivery.nack(true); // arrived while stopping: hand it back
      hold.add(delivery);
    });
    tag = consumerTag;
    if (current?.channel === channel) current.consumerTag = consumerTag;
  }

  /**
   * The broker cancelled our consumer on an open channel: the due queue was deleted, or (RabbitMQ 4.3+) a
   * delivery was held unacknowledged past its consumer timeout, and the broker took back what we held. No
   * reconnect follows, so subscribe again here (declaring the queue first, in case it was deleted). What we
   * still hold is handled as usual: a copy the broker redelivers is settled by its claim, not sent twice.
   */
  async function cancelledByBroker(channel: AmqpChannel, tag: string | null): Promise<void> {
    if (current?.channel !== channel || current.consumerTag !== tag) return;
    current.consumerTag = null;
    if (!started || paused) return;
    logger.warn({ consumerTag: tag }, 'consumer cancelled by the broker; subscribing again');
    try {
      await declareCore(channel, names);
      if (current?.channel === channel && !current.consumerTag && started && !paused)
        await consumeOn(channel);
    } catch (err) {
      // A failed declare or consume closes the channel; its reconnect subscribes again.
      logger.warn({ err: loggableError(err) }, 'subscribing again after a broker cancel failed');
    }
  }

  const wrapper = connection.createChannel({
    name: 'consumer',
    confirm: false,
    setup: async (ch: Channel) => {
      const channel = ch;
      reconnectOnChannelError(ch, connection, logger, 'consumer');
      await declareCore(ch, names);
      await channel.prefetch(deps.prefetch, false);
      current = { channel, consumerTag: null };
      if (started && !paused) await consumeOn(channel);
    },
  });
  wrapper.on('error', (err: Error) =>
    logger.error({ err: loggableError(err) }, 'consumer channel setup failed'),
  );

  async function cancelCurrent(): Promise<void> {
    const c = current;
    const tag = c?.consumerTag;
    if (!c || !tag) return;
    c.consumerTag = null;
    await c.channel.cancel(tag).catch(() => undefined);
  }

  return {
    get paused() {
      return paused;
    },
    async start() {
      started = true;
      await wrapper.waitForConnect();
      if (current && !current.consumerTag && !paused) await consumeOn(current.channel);
    },
    async pause() {
      if (paused) return;
      paused = true;
      await cancelCurrent();
      logger.warn('consumer paused');
    },
    async resume() {
      if (!paused) return;
      paused = false;
      if (current && !current.consumerTag) await consumeOn(current.channel).catch(() => undefined);
      logger.info('consumer resumed');
    },
    async stop() {
      started = false;
      // From here on the hold and the batcher hand back whatever arrives, is held, or was not started.
      hold.stop();
      const finishing = batcher.stop();
      await cancelCurrent();
      await finishing;
      await wrapper.close();
    },
  };
}
