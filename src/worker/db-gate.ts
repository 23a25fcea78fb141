import { isTransientDbError } from '../db/errors';
import { UnavailableError } from '../errors';
import type { Logger } from '../logger';

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
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    async run(what, fn) {
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await fn();
          if (down) {
            down = false;
            deps.logger.info({ what }, 'postgres reachable again');
            deps.onUp();
          }
          return result;
        } catch (err) {
          if (!isTransientDbError(err)) throw err;
          if (closed)
            throw new UnavailableError('database_unavailable', `${what}: postgres unavailable`, err);
          if (!down) {
            down = true;
            deps.logger.warn({ what, err: (err as Error).message }, 'postgres unavailable; holding work');
            deps.onDown();
          }
          await sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt));
        }
      }
    },
    close() {
      closed = true;
    },
  };
}
