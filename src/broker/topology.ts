import type { Channel } from './connection';

/**
 * What declaring topology needs of a channel: the managed channel in production, a recording fake in
 * unit tests.
 */
export type TopologyChannel = Pick<Channel, 'assertExchange' | 'assertQueue' | 'bindQueue' | 'bindExchange'>;

/** Routing token of the due queue: the last word of every levels routing key, the plugin's routing key. */
export const DUE_TOKEN = 'due';
/** Redeliveries of one wake-up before the broker dead-letters it (poison protection, not retries). */
const DUE_DELIVERY_LIMIT = 20;

/** The levels transport's settings: derived from the config once, in chooseTransport. */
export interface LevelsShape {
  /** TTL of level 0 in ms; level L holds a message for 2^L units. */
  readonly unitMs: number;
  /** Number of levels (bits of the routing key). */
  readonly count: number;
}

/** Every exchange and queue name, built from the configured prefix (see transports/ for who declares which). */
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

/** Builds every broker name from the configured prefix; level names carry the levels unit. */
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

/**
 * The due queue and the dead-letter pair: needed by publishers and consumers in every mode. Only
 * assertions, so it is safe to re-run on every reconnect.
 */
export async function declareCore(channel: TopologyChannel, names: BrokerNames): Promise<void> {
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
