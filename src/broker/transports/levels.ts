import { type BrokerNames, DUE_TOKEN, type LevelsShape, type TopologyChannel } from '../topology';
import { type DelayTransport, dueNowRoute, type Route } from './transport';

/**
 * Units a wake-up is aimed before its due time. The dead-letter hops on the way down take time of their
 * own, 100–200 ms for a 12 s wait (6 hops) on this project's loaded 2-core test machine. Aimed one unit
 * early, more than half of the wake-ups at 500/s still came late (p50 6–128 ms, p99 100–260 ms over five
 * runs); two units early: p50 1–8 ms.
 */
const LEAD_UNITS = 2;

/**
 * TTL + dead-letter levels. A wake-up is aimed LEAD_UNITS before its due time and its wait rounded down
 * to whole units, so it would leave the last level between LEAD_UNITS and LEAD_UNITS + 1 units early;
 * the dead-letter hops eat into that, and the worker holds what is left on a timer (worker/hold.ts).
 * Rounding up instead made every wake-up late by half a unit on average, plus every hop.
 * The wait in units is written as `count` bits, most significant first; the message enters at the level
 * of its highest set bit. A wait under LEAD_UNITS + 1 units goes straight to the due queue, held whole.
 */
export function createLevelsTransport(names: BrokerNames, shape: LevelsShape): DelayTransport {
  const maxUnits = 2 ** shape.count - 1;
  return {
    mode: 'levels',
    maxDelayMs: maxUnits * shape.unitMs,
    earlyMs: (LEAD_UNITS + 1) * shape.unitMs,
    route(delayMs: number): Route {
      const units = Math.min(Math.floor(delayMs / shape.unitMs) - LEAD_UNITS, maxUnits);
      if (units <= 0) return dueNowRoute(names.due);
      const bits = units.toString(2).padStart(shape.count, '0');
      const highest = shape.count - 1 - bits.indexOf('1');
      return {
        exchange: names.level(highest),
        routingKey: `${bits.split('').join('.')}.${DUE_TOKEN}`,
        mandatory: true,
        delayMs: units * shape.unitMs,
      };
    },
    declare: (channel) => declareLevels(channel, names, shape),
  };
}

/** Number of level queues a wait passes through (each `1` bit is one quorum-queue hop). */
export function levelHops(route: Route): number {
  return route.routingKey.split('.').filter((b) => b === '1').length;
}

/**
 * The binary TTL + dead-letter cascade (reference/rabbitmq.md §3.3 and §6, NServiceBus's v2 delay
 * infrastructure): level L is a topic exchange and a quorum queue whose messages wait 2^L units and are
 * then dead-lettered, at least once, to level L−1. Bit L of the routing key decides whether a message
 * waits at level L (1) or passes straight on (0).
 */
async function declareLevels(
  channel: TopologyChannel,
  names: BrokerNames,
  shape: LevelsShape,
): Promise<void> {
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
