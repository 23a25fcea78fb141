import { brokerNames, declareCore, type LevelsShape } from '../../../src/broker/topology';
import { createLevelsTransport } from '../../../src/broker/transports/levels';
import { createPluginTransport } from '../../../src/broker/transports/plugin';
import type { DelayTransport } from '../../../src/broker/transports/transport';
import { createTopologyRecorder, followMessage, type TopologyCall } from '../../helpers/topology-recorder';

const shape: LevelsShape = { unitMs: 100, count: 8 };
const names = brokerNames('t', shape);

/** What the publisher's setup declares: the core topology, then the transport's own. */
async function declaredBy(transport: DelayTransport): Promise<TopologyCall[]> {
  const { channel, calls } = createTopologyRecorder();
  await declareCore(channel, names);
  const core = calls.length;
  await transport.declare(channel);
  expect(calls.length).toBeGreaterThan(core);
  return calls;
}

/** Every binding joins objects declared before it, as the broker requires. */
function expectBindingsAfterTheirEnds(calls: readonly TopologyCall[]): void {
  const declared = new Set<string>();
  for (const c of calls) {
    if (c.kind === 'exchange') declared.add(`exchange ${c.name}`);
    if (c.kind === 'queue') declared.add(`queue ${c.name}`);
    if (c.kind === 'bindQueue') {
      expect(declared).toContain(`queue ${c.queue}`);
      expect(declared).toContain(`exchange ${c.source}`);
    }
    if (c.kind === 'bindExchange') {
      expect(declared).toContain(`exchange ${c.destination}`);
      expect(declared).toContain(`exchange ${c.source}`);
    }
  }
}

describe('levels transport topology', () => {
  const levels = createLevelsTransport(names, shape);

  it('brings every wait, from one unit to the longest chain, to the due queue after exactly its delay', async () => {
    const calls = await declaredBy(levels);
    for (let units = 1; units <= 2 ** shape.count - 1; units++) {
      const route = levels.route(units * shape.unitMs);
      const { queues, waitedMs } = followMessage(calls, route.exchange, route.routingKey);
      expect({ units, waitedMs, last: queues.at(-1) }).toEqual({
        units,
        waitedMs: route.delayMs,
        last: names.due,
      });
    }
  });

  it('sends a due wake-up straight to the due queue', async () => {
    const route = levels.route(0);
    expect(followMessage(await declaredBy(levels), route.exchange, route.routingKey)).toEqual({
      queues: [names.due],
      waitedMs: 0,
    });
  });

  it('declares each level as a durable quorum queue that dead-letters at least once and rejects on overflow', async () => {
    const calls = await declaredBy(levels);
    expectBindingsAfterTheirEnds(calls);
    const levelQueues = calls.filter((c) => c.kind === 'queue' && c.name.startsWith('t.delay.'));
    expect(levelQueues).toHaveLength(shape.count);
    expect(calls).toContainEqual({
      kind: 'queue',
      name: 't.delay.100ms.03',
      options: {
        durable: true,
        arguments: {
          'x-queue-type': 'quorum',
          'x-message-ttl': 800,
          'x-dead-letter-exchange': 't.delay.100ms.02',
          'x-dead-letter-strategy': 'at-least-once',
          'x-overflow': 'reject-publish',
        },
      },
    });
  });

  it('catches what the delivery exchange cannot route in the unroutable queue', async () => {
    const calls = await declaredBy(levels);
    expect(calls).toContainEqual({
      kind: 'exchange',
      name: names.delivery,
      type: 'topic',
      options: { durable: true, arguments: { 'alternate-exchange': names.unroutable } },
    });
    expect(followMessage(calls, names.delivery, 'not.for.anyone').queues).toEqual([names.unroutable]);
  });

  it('declares the same thing when run again, as on a reconnect', async () => {
    const first = await declaredBy(levels);
    expect(await declaredBy(levels)).toEqual(first);
  });
});

describe('plugin transport topology', () => {
  const plugin = createPluginTransport(names, 86_400_000);

  it('declares only the delayed exchange (direct, no alternate exchange) bound to the due queue', async () => {
    const { channel, calls } = createTopologyRecorder();
    await plugin.declare(channel);
    expect(calls).toEqual([
      {
        kind: 'exchange',
        name: 't.delayed',
        type: 'x-delayed-message',
        options: { durable: true, arguments: { 'x-delayed-type': 'direct' } },
      },
      { kind: 'bindQueue', queue: 't.due', source: 't.delayed', pattern: 'due' },
    ]);
  });

  it('routes a delayed wake-up from its exchange to the due queue, and needs no level', async () => {
    const calls = await declaredBy(plugin);
    expectBindingsAfterTheirEnds(calls);
    const route = plugin.route(5000);
    expect(followMessage(calls, route.exchange, route.routingKey).queues).toEqual([names.due]);
    expect(calls.some((c) => c.kind === 'queue' && c.name.startsWith('t.delay.'))).toBe(false);
  });
});
