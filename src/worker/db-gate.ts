import { isTransientDbError } from '../db/errors';
import { UnavailableError } from '../errors';
import type { Logger } from '../logger';
import { exponentialBackoff, retry } from '../retry';
import { loggableError } from '../loggable-error';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

export interface DbGate {
  /** Runs `fn`, waiting out a Postgres outage (with backoff) instead of failing; other errors propagate. */
  run<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** After this, an outage fails the call instead of waiting (shutdown). */
  close(): void;
}

/**
 * Holds the worker's work while Postgres is unreachable: the first failure calls `onDown` (the consumer
 * stops taking wake-ups; the ones in hand stay unacknowledged), the first success after it calls `onUp`.
 * Nothing is acked, sent or dropped on the strength of a statement that did not run.
 */
export function createDbGate(deps: { onDown: () => void; onUp: () => void; logger: Logger }): DbGate {
  let down = false;
  let closed = false;
  return {
    async run(what, fn) {
      const result = await retry(fn, {
        attempts: Infinity,
        delayMs: exponentialBackoff(FIRST_RETRY_MS, MAX_RETRY_MS),
        jitter: 0.5,
        retryable: (err) => isTransientDbError(err) && !closed,
        onRetry: (err) => {
          if (down) return;
          down = true;
          deps.logger.warn({ what, err: loggableError(err) }, 'postgres unavailable; holding work');
          deps.onDown();
        },
      }).catch((err: unknown) => {
        if (!isTransientDbError(err)) throw err;
        throw new UnavailableError('database_unavailable', `${what}: postgres unavailable`, err);
      });
      if (down) {
        down = false;
        deps.logger.info({ what }, 'postgres reachable again');
        deps.onUp();
      }
      return result;
    },
    close() {
      closed = true;
    },
  };
}
