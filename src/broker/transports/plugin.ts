import { type BrokerNames, DUE_TOKEN, type TopologyChannel } from '../topology';
import { type DelayTransport, dueNowRoute, type Route } from './transport';

/** The plugin's own limit: it routes immediately anything above 2^32 − 1 ms. */
export const PLUGIN_LIMIT_MS = 4_294_967_295;

/**
 * rabbitmq-delayed-message-exchange. `x-delay` is always sent as a typed long: amqplib encodes integers
 * in [−128, 127] as a signed byte, which the plugin (3.13+) ignores and routes at once. Never mandatory:
 * the plugin routes to nothing at publish time, so every mandatory publish would come back NO_ROUTE.
 */
export function createPluginTransport(names: BrokerNames, maxDelayMs: number): DelayTransport {
  const cap = Math.min(maxDelayMs, PLUGIN_LIMIT_MS);
  return {
    mode: 'plugin',
    maxDelayMs: cap,
    earlyMs: 0,
    route(delayMs: number): Route {
      const delay = Math.min(Math.ceil(delayMs), cap);
      if (delay <= 0) return dueNowRoute(names.due);
      return {
        exchange: names.delayed,
        routingKey: DUE_TOKEN,
        headers: { 'x-delay': { '!': 'long', value: delay } },
        mandatory: false,
        delayMs: delay,
      };
    },
    declare: (channel) => declarePlugin(channel, names),
  };
}

/**
 * The plugin's delayed exchange (x-delayed-type direct), bound to the due queue. No alternate exchange:
 * the plugin routes only when the delay ends, so an alternate exchange would catch every wake-up.
 */
async function declarePlugin(channel: TopologyChannel, names: BrokerNames): Promise<void> {
  await channel.assertExchange(names.delayed, 'x-delayed-message', {
    durable: true,
    arguments: { 'x-delayed-type': 'direct' },
  });
  await channel.bindQueue(names.due, names.delayed, DUE_TOKEN);
}
