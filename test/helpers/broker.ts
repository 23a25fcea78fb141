import { randomBytes } from 'node:crypto';
import amqplib from 'amqplib';
import { connectToAny } from '../../src/broker/connect-any';
import { brokerNames, type LevelsShape } from '../../src/broker/topology';

export const TEST_RABBITMQ_URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
/** A broker with the delayed-message plugin, when one is available; plugin-mode tests skip without it. */
export const PLUGIN_RABBITMQ_URL = process.env.RABBITMQ_PLUGIN_URL ?? '';

/** A broker-name prefix of its own for one test file. */
export function randomPrefix(): string {
  return `test.${randomBytes(5).toString('hex')}`;
}

/**
 * Deletes every queue and exchange the service could have declared under `prefix`; `url` may list the
 * nodes of a cluster, as RABBITMQ_URL does.
 */
export async function deleteTopology(url: string, prefix: string, levels: LevelsShape): Promise<void> {
  const names = brokerNames(prefix, levels);
  const model = await connectToAny(url.split(','));
  model.on('error', () => undefined);
  try {
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    const queues = [names.due, names.dead, names.unroutable];
    const exchanges = [names.dead, names.unroutable, names.delivery, names.delayed];
    for (let l = 0; l < levels.count; l++) {
      queues.push(names.level(l));
      exchanges.push(names.level(l));
    }
    for (const q of queues) await channel.deleteQueue(q);
    for (const e of exchanges) await channel.deleteExchange(e);
    await channel.close();
  } finally {
    await model.close().catch(() => undefined);
  }
}

/** Messages waiting in a queue (0 when it does not exist). */
export async function queueDepth(url: string, queue: string): Promise<number> {
  const model = await amqplib.connect(url);
  model.on('error', () => undefined);
  try {
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    const { messageCount } = await channel.checkQueue(queue);
    return messageCount;
  } catch {
    return 0;
  } finally {
    await model.close().catch(() => undefined);
  }
}
