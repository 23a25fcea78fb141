/**
 * `npm run resume-account -- <appId>`: lifts a 45009 pause once the quota was reset (`clear_quota`), so
 * the messages it held go out now instead of at 00:00 China time.
 */
import { chooseTransport } from '../broker/choose-transport';
import { createBrokerConnection } from '../broker/connection';
import { createPublisher } from '../broker/publisher';
import { brokerNames } from '../broker/topology';
import { loadConfig } from '../config';
import { createPool } from '../db/pool';
import { createLogger } from '../logger';
import { dispatch } from '../scheduling/dispatch';
import { resumeAccount } from '../scheduling/resume-account';

async function main(): Promise<void> {
  const appId = process.argv[2];
  const config = loadConfig();
  if (!appId || !config.wechatAccounts.some((a) => a.appId === appId)) {
    throw new Error(
      `usage: npm run resume-account -- <appId>  (one of: ${config.wechatAccounts.map((a) => a.appId).join(', ')})`,
    );
  }
  const logger = createLogger({ level: config.logLevel, name: 'wechat-drip-resume' });
  const pool = createPool({ connectionString: config.databaseUrl, max: 2, logger });
  const levels = { unitMs: config.levelsUnitMs, count: config.levelsCount };
  const names = brokerNames(config.brokerPrefix, levels);
  const { transport } = await chooseTransport(config, names, logger);
  const connection = createBrokerConnection(config.rabbitmqUrl, logger, 'wechat-drip resume');
  const publisher = createPublisher({
    connection,
    names,
    transport,
    levels,
    publishTimeoutMs: 10_000,
    logger,
  });
  try {
    await publisher.waitUntilReady(10_000);
    const { lifted, held } = await resumeAccount(pool, appId);
    // A wake-up that is not confirmed leaves its row for the relay's overdue sweep.
    const { queued } = await dispatch({ pool, publisher, logger }, held, 'relay');
    process.stdout.write(
      lifted
        ? `resumed ${appId}: ${held.length} held messages due again, ${queued} woken\n`
        : `${appId} was not paused\n`,
    );
  } finally {
    await publisher.close();
    await connection.close();
    await pool.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`resume failed: ${(err as Error).message}\n`);
  process.exit(1);
});
