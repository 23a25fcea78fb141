import type { Options } from 'amqplib';
import type { TopologyChannel } from '../../src/broker/topology';

/** One declaration as the broker would receive it, in call order. */
export type TopologyCall =
  | {
      readonly kind: 'exchange';
      readonly name: string;
      readonly type: string;
      readonly options?: Options.AssertExchange;
    }
  | { readonly kind: 'queue'; readonly name: string; readonly options?: Options.AssertQueue }
  | { readonly kind: 'bindQueue'; readonly queue: string; readonly source: string; readonly pattern: string }
  | {
      readonly kind: 'bindExchange';
      readonly destination: string;
      readonly source: string;
      readonly pattern: string;
    };

/** A channel that declares nothing and records every declaration, so topology is checked without a broker. */
export function createTopologyRecorder(): { channel: TopologyChannel; calls: TopologyCall[] } {
  const calls: TopologyCall[] = [];
  const channel: TopologyChannel = {
    assertExchange(name, type, options) {
      calls.push({ kind: 'exchange', name, type, options });
      return Promise.resolve({ exchange: name });
    },
    assertQueue(name = '', options) {
      calls.push({ kind: 'queue', name, options });
      return Promise.resolve({ queue: name, messageCount: 0, consumerCount: 0 });
    },
    bindQueue(queue, source, pattern) {
      calls.push({ kind: 'bindQueue', queue, source, pattern });
      return Promise.resolve({});
    },
    bindExchange(destination, source, pattern) {
      calls.push({ kind: 'bindExchange', destination, source, pattern });
      return Promise.resolve({});
    },
  };
  return { channel, calls };
}

/** Whether a topic binding pattern matches a routing key (`*` one word, `#` zero or more). */
function topicMatches(pattern: readonly string[], key: readonly string[]): boolean {
  if (pattern.length === 0) return key.length === 0;
  const [word, ...rest] = pattern;
  if (word === '#') return topicMatches(rest, key) || (key.length > 0 && topicMatches(pattern, key.slice(1)));
  return key.length > 0 && (word === '*' || word === key[0]) && topicMatches(rest, key.slice(1));
}

/**
 * Follows a message through the recorded topology as RabbitMQ would: exchange bindings, queue bindings,
 * a TTL queue's dead-lettering (same routing key) and an exchange's alternate exchange. Returns every
 * queue it rests in, in order, with the time it waited there; stops at the first queue without a TTL.
 */
export function followMessage(
  calls: readonly TopologyCall[],
  exchange: string,
  routingKey: string,
): { queues: string[]; waitedMs: number } {
  const exchanges = new Map<string, Extract<TopologyCall, { kind: 'exchange' }>>();
  const queues = new Map<string, Extract<TopologyCall, { kind: 'queue' }>>();
  for (const c of calls) {
    if (c.kind === 'exchange') exchanges.set(c.name, c);
    if (c.kind === 'queue') queues.set(c.name, c);
  }
  const key = routingKey.split('.');
  const matches = (type: string, pattern: string) =>
    type === 'fanout' || (type === 'direct' ? pattern === routingKey : topicMatches(pattern.split('.'), key));

  const route = (name: string): string[] => {
    if (name === '') return [routingKey];
    const ex = exchanges.get(name);
    if (!ex) throw new Error(`published to an undeclared exchange ${name}`);
    const found: string[] = [];
    for (const c of calls) {
      if (c.kind === 'bindQueue' && c.source === name && matches(ex.type, c.pattern)) found.push(c.queue);
      if (c.kind === 'bindExchange' && c.source === name && matches(ex.type, c.pattern))
        found.push(...route(c.destination));
    }
    const alternate = (ex.options?.arguments as Record<string, string> | undefined)?.['alternate-exchange'];
    return found.length === 0 && alternate ? route(alternate) : found;
  };

  const path: string[] = [];
  let waitedMs = 0;
  let next = route(exchange);
  // A cascade ends at a queue without a TTL; a cycle in the topology would not, so the walk is bounded.
  while (path.length < 100) {
    if (next.length !== 1) throw new Error(`routed to ${next.length} queues (${next.join(', ')})`);
    const queue = queues.get(next[0]);
    if (!queue) throw new Error(`routed to an undeclared queue ${next[0]}`);
    path.push(queue.name);
    const args = (queue.options?.arguments ?? {}) as Record<string, unknown>;
    if (typeof args['x-message-ttl'] !== 'number') return { queues: path, waitedMs };
    waitedMs += args['x-message-ttl'];
    next = route(String(args['x-dead-letter-exchange']));
  }
  throw new Error(`still waiting after ${path.length} queues: ${path.join(' → ')}`);
}
