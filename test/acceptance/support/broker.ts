import { randomBytes } from 'node:crypto';
import amqplib from 'amqplib';

export const RABBITMQ_URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
/** A broker with the delayed-message plugin (`make test` starts one when it can); empty when none. */
export const PLUGIN_RABBITMQ_URL = process.env.RABBITMQ_PLUGIN_URL ?? '';

/** A BROKER_PREFIX of one test file's own. */
export function randomBrokerPrefix(): string {
  return `acc.${randomBytes(5).toString('hex')}`;
}

/**
 * Clean-up after a test file: deletes what the service declares under `prefix`, by the names
 * docs/guarantees.md "Delay transports: which one" gives (`<prefix>.due`, `.dead`, `.delay.<unit>ms.NN`, …). Deleting a name that was
 * never declared is harmless.
 */
export async function deleteBrokerObjects(
  url: string,
  prefix: string,
  levels: { unitMs: number; count: number },
): Promise<void> {
  const connection = await amqplib.connect(url);
  connection.on('error', () => undefined);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    const levelQueues = Array.from(
      { length: levels.count },
      (_, l) => `${prefix}.delay.${levels.unitMs}ms.${String(l).padStart(2, '0')}`,
    );
    for (const q of [`${prefix}.due`, `${prefix}.dead`, `${prefix}.unroutable`, ...levelQueues]) {
      await channel.deleteQueue(q);
    }
    const exchanges = [`${prefix}.dead`, `${prefix}.unroutable`, `${prefix}.delivery`, `${prefix}.delayed`];
    for (const e of [...exchanges, ...levelQueues]) await channel.deleteExchange(e);
    await channel.close();
  } finally {
    await connection.close().catch(() => undefined);
  }
}
