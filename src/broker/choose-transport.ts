import type { Config } from '../config';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { probeDelayedPlugin, type ProbeResult } from './probe';
import { brokerNames, type BrokerNames, type LevelsShape } from './topology';
import { createLevelsTransport } from './transports/levels';
import { createPluginTransport } from './transports/plugin';
import type { DelayTransport } from './transports/transport';
import { loggableError } from '../loggable-error';
import { retry } from '../retry';

const PROBE_RETRY_MS = 2000;

/** The chosen transport and the broker names it (and the core topology) use. */
export interface TransportChoice {
  readonly transport: DelayTransport;
  readonly names: BrokerNames;
  /** Why this transport: the configured mode, or what the probe found. */
  readonly reason: string;
}

/**
 * The one place the broker settings are read from the config: the levels shape (which the level names
 * carry) and the broker names are derived here, once.
 *
 * DELAY_MODE=levels is taken as configured, without a probe: the process starts even while RabbitMQ is
 * down and publishes once it is back. DELAY_MODE=auto probes on a throw-away connection, waiting for the
 * broker if it is unreachable; DELAY_MODE=plugin probes too, and refuses to start without the plugin.
 */
export async function chooseTransport(
  config: Config,
  logger: Logger,
  probe: (
    urls: readonly string[],
    exchange: string,
    logger: Logger,
  ) => Promise<ProbeResult> = probeDelayedPlugin,
): Promise<TransportChoice> {
  const shape: LevelsShape = { unitMs: config.levelsUnitMs, count: config.levelsCount };
  const names = brokerNames(config.brokerPrefix, shape);
  const levels = (reason: string): TransportChoice => ({
    transport: createLevelsTransport(names, shape),
    names,
    reason,
  });
  const plugin = (reason: string): TransportChoice => ({
    transport: createPluginTransport(names, config.pluginMaxDelayMs),
    names,
    reason,
  });
  if (config.delayMode === 'levels') return levels('DELAY_MODE=levels');

  const result = await retry(() => probe(config.rabbitmqUrls, names.delayed, logger), {
    attempts: Infinity,
    delayMs: () => PROBE_RETRY_MS,
    retryable: (err) => !(err instanceof AppError && !err.retryable),
    onRetry: (err) =>
      logger.warn({ err: loggableError(err) }, 'rabbitmq unreachable for the plugin probe; retrying'),
  });
  if (config.delayMode === 'plugin') {
    if (!result.pluginAvailable) {
      throw new AppError(
        'broker_config',
        `DELAY_MODE=plugin but the broker has no delayed-message plugin: ${result.reason}`,
      );
    }
    return plugin('DELAY_MODE=plugin; plugin present');
  }
  const reason = `auto: ${result.reason} (RabbitMQ ${result.serverVersion})`;
  return result.pluginAvailable ? plugin(reason) : levels(reason);
}
