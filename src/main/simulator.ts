import { AppError } from '../errors';
import { createLogger } from '../logger';
import { onShutdown } from '../shutdown';
import { loadSimulatorConfig } from '../simulator/config';
import { createSimulator } from '../simulator/create-simulator';

/** Composition root of `npm run simulator`: the WeChat API simulator as a standalone process. */
async function main(): Promise<void> {
  const config = loadSimulatorConfig();
  const logger = createLogger({ level: config.logLevel, name: 'simulator' });
  const simulator = createSimulator({
    accounts: config.accounts,
    tokenTtlSeconds: config.tokenTtlSeconds,
    webhookBaseUrl: config.webhookBaseUrl,
    enforceContactWindow: config.enforceContactWindow,
    ...(config.component ? { component: config.component } : {}),
    ticketIntervalMs: config.ticketIntervalMs,
    logger,
  });
  const { url } = await simulator.listen(config.port, config.host);
  logger.info(
    {
      url,
      accounts: config.accounts.map((a) => a.appId),
      tokenTtlSeconds: config.tokenTtlSeconds,
      webhookBaseUrl: config.webhookBaseUrl,
      enforceContactWindow: config.enforceContactWindow,
      component: config.component?.componentAppId ?? null,
      ticketIntervalMs: config.ticketIntervalMs,
    },
    'wechat simulator listening',
  );

  onShutdown(logger, [() => simulator.close()]);
}

main().catch((err: unknown) => {
  // Configuration errors list every problem; print them plainly, without a stack.
  process.stderr.write(`${err instanceof AppError ? err.message : String((err as Error)?.stack ?? err)}\n`);
  process.exitCode = 1;
});
