import type { Logger } from '../logger';
import type { Pool } from '../db/pool';
import { pruneUrlUses } from '../store/webhook-url-uses';
import { loggableError } from '../loggable-error';

/**
 * A URL stays remembered for three skew windows: its timestamp is accepted for at most two (from one
 * window before its first use to one after), and the third absorbs clock differences between api hosts
 * and Postgres. A push's dedupe key is kept as long (retention), for the same reason.
 */
export const RETENTION_SKEW_WINDOWS = 3;

/**
 * Returns a function to call after each plaintext push: it prunes old URL uses in the background, at
 * most once per skew window in this process (a restart merely prunes a little early). A failure is
 * logged and the next chance retries.
 */
export function createUrlUsePruner(opts: { pool: Pool; logger: Logger; maxSkewS: number }): () => void {
  let lastStartedMs = 0;
  let running = false;
  return () => {
    const nowMs = Date.now();
    if (running || nowMs - lastStartedMs < opts.maxSkewS * 1000) return;
    lastStartedMs = nowMs;
    running = true;
    void pruneUrlUses(opts.pool, RETENTION_SKEW_WINDOWS * opts.maxSkewS)
      .catch((err: Error) => opts.logger.warn({ err: loggableError(err) }, 'pruning webhook URL uses failed'))
      .finally(() => (running = false));
  };
}
