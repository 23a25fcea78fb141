import type { Channel } from './connection';

/** Routing token of the due queue: the last word of every levels routing key, the plugin's routing key. */
export const DUE_TOKEN = 'due';
/** Redeliveries of one wake-up before the broker dead-letters it (poison protection, not retries). */
const DUE_DELIVERY_LIMIT = 20;

export interface LevelsShape {
  /** TTL of level 0 in ms; level L holds a message for 2^L units. */
  readonly unitMs: number;
  /** Number of levels (bits of the routing key). */
  readonly count: number;
}

/** Every exchange and queue name, built from the configured prefix. */
export interface BrokerNames {
  /** Quorum queue the workers consume: wake-ups that are due. */
  readonly due: string;
  /** Exchange + queue for wake-ups given up on (retries exhausted) and poison messages. */
  readonly dead: string;
  /** Alternate exchange + queue catching anything the delivery exchange cannot route. */
  readonly unroutable: string;
  /** Levels: topic exchange the last level delivers to; routes `#.due` to the due queue. */
  readonly delivery: string;
  /** Plugin: the x-delayed-message exchange. */
  readonly delayed: string;
  /** Levels: exchange and queue of level L. The unit is in the name so a new unit never clashes. */
  readonly level: (level: number) => string;
}

export function brokerNames(prefix: string, levels: LevelsShape): BrokerNames {
  return {
    due: `${prefix}.due`,
    dead: `${prefix}.dead`,
    unroutable: `${prefix}.unroutable`,
    delivery: `${prefix}.delivery`,
    delayed: `${prefix}.delayed`,
    level: (l) => `${prefix}.delay.${levels.unitMs}ms.${String(l).padStart(2, '0')}`,
  };
}

/** The due queue and the dead-letter pair: needed by publishers and consumers in every mode. */
export async function declareCore(channel: Channel, names: BrokerNames): Promise<void> {
  await channel.assertExchange(names.dead, 'fanout', { durable: true });
  await channel.assertQueue(names.dead, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.dead, names.dead, '');
  await channel.assertQueue(names.due, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': DUE_DELIVERY_LIMIT,
      'x-dead-letter-exchange': names.dead,
    },
  });
}

/**
 * The binary TTL + dead-letter cascade (reference/rabbitmq.md §3.3 and §6, NServiceBus's v2 delay
 * infrastructure): level L is a topic exchange and a quorum queue whose messages wait 2^L units and are
 * then dead-lettered, at least once, to level L−1. Bit L of the routing key decides whether a message
 * waits at level L (1) or passes straight on (0).
 */
export async function declareLevels(channel: Channel, names: BrokerNames, shape: LevelsShape): Promise<void> {
  const top = shape.count - 1;
  await channel.assertExchange(names.unroutable, 'fanout', { durable: true });
  await channel.assertQueue(names.unroutable, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(names.unroutable, names.unroutable, '');
  await channel.assertExchange(names.delivery, 'topic', {
    durable: true,
    arguments: { 'alternate-exchange': names.unroutable },
  });
  await channel.bindQueue(names.due, names.delivery, `#.${DUE_TOKEN}`);
  // Exchanges first: each level binds to the one below it.
  for (let level = top; level >= 0; level--) {
    await channel.assertExchange(names.level(level), 'topic', { durable: true });
  }
  for (let level = top; level >= 0; level--) {
    const name = names.level(level);
    const next = level > 0 ? names.level(level - 1) : names.delivery;
    const skip = '*.'.repeat(top - level);
    await channel.assertQueue(name, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-message-ttl': 2 ** level * shape.unitMs,
        'x-dead-letter-exchange': next,
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
    await channel.bindQueue(name, name, `${skip}1.#`);
    await channel.bindExchange(next, name, `${skip}0.#`);
  }
}

/** The plugin's delayed exchange (x-delayed-type direct), bound to the due queue. */
export async function declarePlugin(channel: Channel, names: BrokerNames): Promise<void> {
  await channel.assertExchange(names.delayed, 'x-delayed-message', {
    durable: true,
    arguments: { 'x-delayed-type': 'direct' },
  });
  await channel.bindQueue(names.due, names.delayed, DUE_TOKEN);
}
