import type { ConfirmChannel } from 'amqplib';
import type { ChannelWrapper } from 'amqp-connection-manager';
import { UnavailableError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { type AmqpConnectionManager, reconnectOnChannelError } from './connection';
import { type BrokerNames, declareCore } from './topology';
import type { DelayTransport } from './transports/transport';
import { encodeWakeUp, type WakeUp } from './wake-up';
import { loggableError } from '../loggable-error';

export interface Publisher {
  readonly transport: DelayTransport;
  /**
   * The publishing horizon (PUBLISH_HORIZON), in ms: a message due further ahead is only written to
   * Postgres when scheduled, and the horizon pump publishes its wake-up as it comes within the horizon.
   */
  readonly horizonMs: number;
  /**
   * Publishes a wake-up for `dueAt` and resolves once the broker confirmed it (and did not return it).
   * `reason` labels the metric: schedule, relay, early (re-delay of an early arrival), retry, paused.
   */
  publishWakeUp(wakeUp: WakeUp, reason?: string): Promise<void>;
  /** Parks a wake-up in the dead-letter queue with the reason it was given up on. */
  publishDead(wakeUp: WakeUp, reason: string): Promise<void>;
  /** Publishes waiting for the broker's confirm. */
  queueLength(): number;
  /** True once the channel is up and its topology declared; false while disconnected. */
  readonly ready: boolean;
  /** When the channel last came back after a lost connection (epoch ms); null before the first reconnect. */
  readonly reconnectedAt: number | null;
  /** Resolves when ready, or after `timeoutMs` regardless (a process may start while RabbitMQ is down). */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * One confirm channel for every publish of this process. Its setup declares the core topology, then lets
 * the transport declare its own (assertions only, re-run on every reconnect), and collects
 * `basic.return`s: the broker sends a return before the confirm of the same message, so a publish whose
 * id was returned is known unroutable when its confirm resolves (amqp-connection-manager does not
 * surface returns itself).
 */
export function createPublisher(deps: {
  connection: AmqpConnectionManager;
  names: BrokerNames;
  transport: DelayTransport;
  publishTimeoutMs: number;
  horizonMs: number;
  logger: Logger;
  metrics?: Pick<Metrics, 'published'>;
}): Publisher {
  const { connection, names, transport, logger } = deps;
  const returned = new Set<string>();
  let counter = 0;

  const channel: ChannelWrapper = connection.createChannel({
    name: 'publisher',
    confirm: true,
    publishTimeout: deps.publishTimeoutMs,
    setup: async (ch: ConfirmChannel) => {
      reconnectOnChannelError(ch, connection, logger, 'publisher');
      ch.on('return', (msg: { properties: { messageId?: string } }) => {
        if (msg.properties.messageId) returned.add(msg.properties.messageId);
      });
      await declareCore(ch, names);
      await transport.declare(ch);
    },
  });
  channel.on('error', (err: Error) =>
    logger.error({ err: loggableError(err) }, 'publisher channel setup failed'),
  );
  // Publishing only while the channel is up keeps amqp-connection-manager from buffering wake-ups in
  // memory during an outage (its issue #61) and from sending them later with a wait computed before
  // the outage: the outbox keeps their entries and the relay publishes them afresh.
  let ready = false;
  let connects = 0;
  let reconnectedAt: number | null = null;
  channel.on('connect', () => {
    ready = true;
    if (++connects > 1) reconnectedAt = Date.now();
  });
  connection.on('disconnect', () => {
    ready = false;
  });

  async function publish(
    exchange: string,
    routingKey: string,
    wakeUp: WakeUp,
    opts: { mandatory: boolean; headers?: Record<string, unknown> },
  ): Promise<void> {
    if (!ready) throw new UnavailableError('broker_unavailable', 'RabbitMQ is not connected');
    const messageId = `${wakeUp.ids[0]}.${(counter = (counter + 1) % Number.MAX_SAFE_INTEGER)}`;
    try {
      await channel.publish(exchange, routingKey, encodeWakeUp(wakeUp), {
        persistent: true,
        contentType: 'application/json',
        messageId,
        mandatory: opts.mandatory,
        headers: opts.headers,
      });
    } catch (err) {
      throw new UnavailableError(
        'broker_publish_failed',
        `publish to ${exchange || 'the due queue'} failed`,
        err,
      );
    }
    if (returned.delete(messageId)) {
      throw new UnavailableError('broker_unroutable', `the broker could not route a wake-up via ${exchange}`);
    }
  }

  return {
    transport,
    horizonMs: deps.horizonMs,
    async publishWakeUp(wakeUp, reason = 'schedule') {
      const route = transport.route(wakeUp.dueAt - Date.now());
      await publish(route.exchange, route.routingKey, wakeUp, {
        mandatory: route.mandatory,
        headers: route.headers,
      });
      deps.metrics?.published.inc({ transport: transport.mode, reason });
    },
    publishDead(wakeUp, reason) {
      return publish(names.dead, '', wakeUp, { mandatory: true, headers: { 'x-drip-reason': reason } });
    },
    queueLength: () => channel.queueLength(),
    get ready() {
      return ready;
    },
    get reconnectedAt() {
      return reconnectedAt;
    },
    async waitUntilReady(timeoutMs) {
      if (ready) return true;
      await Promise.race([channel.waitForConnect(), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
      return ready;
    },
    close: () => channel.close(),
  };
}
