import { isTransientDbError } from '../db/errors';
import type { Logger } from '../logger';
import { loggableError } from '../loggable-error';

/** A background job run pass after pass. */
export interface RepeatedPasses {
  start(): void;
  /** No pass starts after this; resolves once the pass in hand has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` `intervalMs` after the previous pass ended (never two at once), until stopped. A failed pass
 * is logged as `<what> failed` (a warning when Postgres was briefly unreachable) and the next one tries
 * again.
 */
export function repeatPasses(opts: {
  intervalMs: number;
  logger: Logger;
  what: string;
  pass: () => Promise<unknown>;
}): RepeatedPasses {
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<unknown> | null = null;
  let stopped = false;

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      current = opts
        .pass()
        .catch((err: unknown) => {
          const level = isTransientDbError(err) ? 'warn' : 'error';
          opts.logger[level]({ err: loggableError(err) }, `${opts.what} failed`);
        })
        .finally(schedule);
    }, opts.intervalMs);
  }

  return {
    start: schedule,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}

/** A background job run pass after pass, which a test or the CLI may also run once. */
export interface PassJob<T> {
  /** One full pass. */
  runOnce(): Promise<T>;
  start(): void;
  /** No pass starts after this (`onStop` is called first); resolves once the pass in hand has ended. */
  stop(): Promise<void>;
}

/**
 * `repeatPasses` of `pass`, as a PassJob. `pass` is given `isStopped`, for one that works in rounds to
 * end after the round in hand; `onStop` wakes one that waits between rounds.
 */
export function passJob<T>(opts: {
  intervalMs: number;
  logger: Logger;
  what: string;
  pass: (isStopped: () => boolean) => Promise<T>;
  onStop?: () => void;
}): PassJob<T> {
  let stopped = false;
  const isStopped = () => stopped;
  const runOnce = () => opts.pass(isStopped);
  const passes = repeatPasses({
    intervalMs: opts.intervalMs,
    logger: opts.logger,
    what: opts.what,
    pass: runOnce,
  });
  return {
    runOnce,
    start: passes.start,
    async stop() {
      stopped = true;
      opts.onStop?.();
      await passes.stop();
    },
  };
}
