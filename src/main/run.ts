import { loadConfig, type Role } from '../config';
import { ConfigError } from '../errors';
import { createLogger } from '../logger';
import { onShutdown } from '../shutdown';
import { startService } from './start-service';
import { loggableError } from '../loggable-error';

/** Shared body of the composition roots: config, logger, the service, signal handling. */
export function run(role?: Role): void {
  let config;
  try {
    config = loadConfig(role ? { ...process.env, ROLE: role } : process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n(see docs/configuration.md for every variable)\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name: `wechat-drip-${config.role}` });
  startService(config, logger)
    .then((service) => onShutdown(logger, [() => service.stop()]))
    .catch((err: unknown) => {
      logger.fatal({ err: loggableError(err, { stack: true }) }, 'start-up failed');
      process.exit(1);
    });
}
