import type { Logger } from './logger';
import { loggableError } from './loggable-error';

export type Closer = () => Promise<void>;

/**
 * Runs the closers in order on SIGTERM / SIGINT, then exits 0. A second signal, or closers still running
 * after `timeoutMs`, exits 1 at once.
 */
export function onShutdown(logger: Logger, closers: Closer[], timeoutMs = 30000): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.error({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void (async () => {
      for (const close of closers) {
        await close().catch((err: unknown) => logger.error({ err: loggableError(err) }, 'closer failed'));
      }
      logger.info('stopped');
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
