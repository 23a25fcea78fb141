import { type BrokerNames, DUE_TOKEN, type LevelsShape } from '../topology';
import { type DelayTransport, dueNowRoute, type Route } from './transport';

/**
 * TTL + dead-letter levels. The wait in units (rounded up, so a wake-up is never early by rounding) is
 * written as `count` bits, most significant first; the message enters at the level of its highest set bit.
 */
export function createLevelsTransport(names: BrokerNames, shape: LevelsShape): DelayTransport {
  const maxUnits = 2 ** shape.count - 1;
  return {
    mode: 'levels',
    maxDelayMs: maxUnits * shape.unitMs,
    route(delayMs: number): Route {
      const units = Math.min(Math.ceil(delayMs / shape.unitMs), maxUnits);
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
  };
}

/** Number of level queues a wait passes through (each `1` bit is one quorum-queue hop). */
export function levelHops(route: Route): number {
  return route.routingKey.split('.').filter((b) => b === '1').length;
}
