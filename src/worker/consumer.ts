import type { Channel as AmqpChannel, ConsumeMessage } from 'amqplib';
import type { Logger } from '../logger';
import { type AmqpConnectionManager, type Channel, reconnectOnChannelError } from '../broker/connection';
import { type BrokerNames, declareCore } from '../broker/topology';
import { parseWakeUp, type WakeUp } from '../broker/wake-up';

/** One wake-up as received, settled exactly once on the channel it came from. */
export interface Delivery {
  /** null when the body is not a wake-up (poison). */
  readonly wakeUp: WakeUp | null;
  readonly redelivered: boolean;
  ack(): void;
  /** `requeue=false` dead-letters through the due queue's dead-letter exchange. */
  nack(requeue: boolean): void;
}

export interface DueConsumer {
  start(): Promise<void>;
  /** Stops taking new wake-ups; the ones held stay unacknowledged (and are redelivered if we die). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Cancels consumption, requeues what was not started, waits for the batches in hand, closes the channel. */
  stop(): Promise<void>;
  readonly paused: boolean;
}

/** Messages a delivery stands for (a wake-up carries several; a poison body counts as one). */
const weight = (d: Delivery) => d.wakeUp?.ids.length ?? 1;

/**
 * Consumes the due queue with a bounded prefetch and hands wake-ups over in batches (up to `batchSize`
 * messages — wake-ups carry several — waiting at most `batchWaitMs` for one to fill). Acks go to the very channel a message came on: after a
 * reconnect, acking an old delivery tag on the new channel would close it (amqp-connection-manager
 * #294); an ack on a dead channel is dropped, and the broker redelivers that message.
 */
export function createDueConsumer(deps: {
  connection: AmqpConnectionManager;
  names: BrokerNames;
  prefetch: number;
  batchSize: number;
  batchWaitMs: number;
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
  const buffer: Delivery[] = [];
  let buffered = 0;
  let timer: NodeJS.Timeout | null = null;
  const running = new Set<Promise<void>>();

  function toDelivery(channel: AmqpChannel, msg: ConsumeMessage): Delivery {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      try {
        fn();
      } catch (err) {
        logger.debug({ err: (err as Error).message }, 'settle on a closed channel dropped');
      }
    };
    return {
      wakeUp: parseWakeUp(msg.content),
      redelivered: msg.fields.redelivered,
      ack: () => settle(() => channel.ack(msg)),
      nack: (requeue) => settle(() => channel.nack(msg, false, requeue)),
    };
  }

  /**
   * Starts batches while fewer than `maxConcurrentBatches` run. Wake-ups beyond that wait here, unclaimed:
   * if this process dies they are simply redelivered, whereas a claimed row would be stranded in
   * `sending` (and end `unknown`). So only what can be sent soon is claimed.
   */
  function pump(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    while (buffer.length > 0 && running.size < deps.maxConcurrentBatches) {
      let size = 0;
      let take = 0;
      while (take < buffer.length && (take === 0 || size + weight(buffer[take]) <= deps.batchSize))
        size += weight(buffer[take++]);
      const batch = buffer.splice(0, take);
      buffered -= size;
      const run = deps
        .onBatch(batch, () => !started)
        .catch((err: unknown) => {
          logger.error({ err: (err as Error).message }, 'batch handler failed; requeueing its wake-ups');
          for (const d of batch) d.nack(true);
        });
      running.add(run);
      void run.finally(() => {
        running.delete(run);
        pump();
      });
    }
  }

  async function consumeOn(channel: AmqpChannel): Promise<void> {
    const { consumerTag } = await channel.consume(names.due, (msg) => {
      if (!msg) return; // consumer cancelled by the broker; the reconnect re-establishes it
      const delivery = toDelivery(channel, msg);
      if (!started) return delivery.nack(true); // arrived while stopping: hand it back
      buffer.push(delivery);
      buffered += weight(delivery);
      if (buffered >= deps.batchSize) pump();
      else timer ??= setTimeout(pump, deps.batchWaitMs);
    });
    if (current?.channel === channel) current.consumerTag = consumerTag;
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
  wrapper.on('error', (err: Error) => logger.error({ err: err.message }, 'consumer channel setup failed'));

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
      await cancelCurrent();
      // Hand back what was prefetched but not started (another worker takes it at once), finish the
      // batches already claimed (their rows are in `sending`: leaving them would strand them).
      if (timer) clearTimeout(timer);
      for (const d of buffer.splice(0)) d.nack(true);
      buffered = 0;
      while (running.size > 0) await Promise.all(running);
      await wrapper.close();
    },
  };
}
