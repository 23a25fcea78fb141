import type { Pool, PoolClient } from '../db/pool';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { compactLedgerStep } from '../store/compact-ledger';
import { dropFinishedPartitions } from '../store/message-partitions';
import { oldestFinishedAgeMs, pruneProcessedPushes } from '../store/prune-finished';
import { releaseRetentionLock, tryRetentionLock } from '../store/retention-lock';
import { passJob, type PassJob } from '../scheduling/repeat-passes';

/**
 * After a full batch (the pruner is behind), it waits this many times as long as the batch took before the
 * next: it then holds one connection a tenth of the time at most, and backs off by itself when the hot path
 * slows Postgres down (its batches take longer, so do its pauses). At 4 (a fifth of the time) a burst lost
 * about a quarter of its throughput on a busy 2-core machine; see docs/BENCHMARKS.md.
 */
const PAUSE_FACTOR = 9;

/**
 * Ledger rows are compacted no sooner than this, whatever the age: a message inserted before a
 * cancellation (a smaller seq) by a transaction still open when the compaction looks would not be seen.
 */
export const LEDGER_KEEP_AT_LEAST_MS = 60 * 60_000;

export interface PrunerOptions {
  /**
   * Partitions of messages all finished longer ago than this are dropped; processed pushes and spent ledger
   * rows older than this are deleted.
   */
  readonly finishedAfterMs: number;
  /** Rows per batch (each batch one short transaction). */
  readonly batchSize: number;
  /** How often a run is tried. */
  readonly intervalMs: number;
  /** Pushes are kept at least this long whatever the age: their dedupe keys refuse WeChat's retries. */
  readonly pushesKeepAtLeastMs: number;
  /** See LEDGER_KEEP_AT_LEAST_MS (the default). */
  readonly ledgerKeepAtLeastMs?: number;
}

/** What one run deleted, per table (messages and attempts: in the partitions it dropped). */
export interface PruneCounts {
  partitions: number;
  messages: number;
  attempts: number;
  pushes: number;
  ledger: number;
}

/** The pruner; a run returns what it deleted, null when another process holds the pruner's lock. It stops after the batch in hand. */
export type Pruner = PassJob<PruneCounts | null>;

/**
 * The retention pruner, run by every worker, one process at a time (an advisory lock held for the run on
 * one connection, on which every batch runs). Messages and their attempts go a partition at a time
 * (src/store/message-partitions.ts); the other tables are drained in batches until a batch comes back
 * short, pausing between full ones (PAUSE_FACTOR).
 */
export function createPruner(deps: {
  pool: Pool;
  logger: Logger;
  metrics: Metrics;
  options: PrunerOptions;
}): Pruner {
  const { pool, logger, metrics, options } = deps;
  const size = options.batchSize;
  let stopped = false;
  let wake: (() => void) | null = null;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });

  /** Runs `step` until it says there is no more, or the pruner stops; returns the total it deleted. */
  async function drain(table: string, step: () => Promise<{ deleted: number; more: boolean }>) {
    let total = 0;
    while (!stopped) {
      const started = Date.now();
      const { deleted, more } = await step();
      total += deleted;
      metrics.retentionPruned.inc({ table }, deleted);
      if (!more) break;
      await pause((Date.now() - started) * PAUSE_FACTOR);
    }
    return total;
  }

  async function prune(client: PoolClient): Promise<PruneCounts> {
    const age = options.finishedAfterMs;
    let messages = 0;
    let attempts = 0;
    const dropped = await dropFinishedPartitions(client, age, {
      stopped: () => stopped,
      onDropped: (d) => {
        logger.info(d, 'retention dropped a partition');
        messages += d.messages;
        attempts += d.attempts;
        metrics.retentionPruned.inc({ table: 'scheduled_messages' }, d.messages);
        metrics.retentionPruned.inc({ table: 'delivery_attempts' }, d.attempts);
        metrics.retentionPartitionsDropped.inc();
      },
    });
    const pushAge = Math.max(age, options.pushesKeepAtLeastMs);
    const pushes = await drain('webhook_pushes', async () => {
      const deleted = await pruneProcessedPushes(client, pushAge, size);
      return { deleted, more: deleted === size };
    });
    let afterId = '0';
    const ledgerAge = Math.max(age, options.ledgerKeepAtLeastMs ?? LEDGER_KEEP_AT_LEAST_MS);
    const ledger = await drain('cancellations', async () => {
      const step = await compactLedgerStep(client, { afterId, limit: size, olderThanMs: ledgerAge });
      afterId = step.lastId;
      return { deleted: step.deleted, more: !step.done };
    });
    metrics.retentionLag.set(Math.max(0, (await oldestFinishedAgeMs(client)) - age) / 1000);
    metrics.retentionLastRun.setToCurrentTime();
    return { partitions: dropped.length, messages, attempts, pushes, ledger };
  }

  async function runOnce(): Promise<PruneCounts | null> {
    const client = await pool.connect();
    let healthy = false;
    try {
      if (!(await tryRetentionLock(client))) {
        healthy = true;
        return null;
      }
      const counts = await prune(client);
      await releaseRetentionLock(client);
      healthy = true;
      if (counts.messages + counts.pushes + counts.ledger > 0) logger.info(counts, 'retention pruned');
      return counts;
    } finally {
      // A connection that failed mid-run is closed rather than pooled: the lock goes with it.
      client.release(!healthy);
    }
  }

  return passJob({
    intervalMs: options.intervalMs,
    logger,
    what: 'retention run',
    pass: runOnce,
    onStop: () => {
      stopped = true;
      wake?.();
    },
  });
}
