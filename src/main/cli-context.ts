import { chooseTransport } from '../broker/choose-transport';
import { createBrokerConnection } from '../broker/connection';
import { createPublisher, type Publisher } from '../broker/publisher';
import type { BrokerNames } from '../broker/topology';
import type { Config } from '../config';
import { createPool, type Pool } from '../db/pool';
import type { Logger } from '../logger';

const CLI_PUBLISH_TIMEOUT_MS = 10_000;

export interface CliContext {
  readonly pool: Pool;
  readonly names: BrokerNames;
  readonly publisher: Publisher;
  close(): Promise<void>;
}

/** What the operator commands share: a small pool and a publisher on the configured transport, ready. */
export async function openCliContext(config: Config, logger: Logger, name: string): Promise<CliContext> {
  const pool = createPool({ connectionString: config.databaseUrl, max: 2, logger });
  const { transport, names } = await chooseTransport(config, logger);
  const connection = createBrokerConnection(config.rabbitmqUrls, logger, name);
  const publisher = createPublisher({
    connection,
    names,
    transport,
    publishTimeoutMs: CLI_PUBLISH_TIMEOUT_MS,
    horizonMs: config.publishHorizonMs,
    logger,
  });
  await publisher.waitUntilReady(CLI_PUBLISH_TIMEOUT_MS);
  return {
    pool,
    names,
    publisher,
    async close() {
      await publisher.close();
      await connection.close();
      await pool.end();
    },
  };
}
