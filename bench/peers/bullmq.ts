import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Queue } from 'bullmq';
import type pg from 'pg';
import type { BenchEnv, SystemUnderTest } from '../system';
import {
  DUE_WORK_POOLS,
  cancelByIds,
  cancelByKey,
  createMessagesTable,
  createPgPool,
  dropSchema,
  recordScheduled,
} from './due-work';
import type { BullmqWorkerConfig, DueJobData } from './bullmq-worker';
import { packageVersion } from '../package-version';
import { forkWorkers, stopWorkers } from './worker-processes';

/** How the BullMQ peer is tuned (the defaults are what the benchmark runs). */
export interface BullmqTuning {
  /** Jobs one worker process runs at once. */
  readonly concurrency: number;
}

/**
 * The tuning the benchmark reports: as many jobs in flight per process as wechat-drip's worker has
 * messages in flight (4 batches of 200). On this shared 2-core machine anything from 200 to 1600 drained
 * a 50,000 burst at 1.9k–2.5k/s, differences within the run-to-run noise.
 */
export const BULLMQ_TUNING: BullmqTuning = { concurrency: 800 };

/** Attempts of a job whose send failed, with exponential backoff from this delay. */
const ATTEMPTS = 10;
const BACKOFF_MS = 1000;
/** Failed jobs kept in Redis (completed ones are removed at once). */
const KEEP_FAILED = 1000;

interface Running {
  readonly schema: string;
  readonly queueName: string;
  readonly pool: pg.Pool;
  queue: Queue<DueJobData> | null;
  workers: ChildProcess[];
}

/**
 * BullMQ delayed jobs, as its docs recommend: `Queue.addBulk` with a `delay` and the message id as
 * `jobId`, and `env.workers` processes each running one `Worker` with `concurrency`. Each job claims,
 * sends and records its one message through due-work.
 */
export function createBullmqSystem(env: BenchEnv, tuning: BullmqTuning = BULLMQ_TUNING): SystemUnderTest {
  let run: Running | null = null;
  const current = (): Running => {
    if (!run) throw new Error('BullMQ peer: start() first');
    return run;
  };

  async function stop(): Promise<void> {
    if (!run) return;
    const { pool, schema, queue, workers } = run;
    run = null;
    try {
      await stopWorkers(workers);
      if (queue) {
        try {
          await queue.obliterate({ force: true });
        } finally {
          await queue.close();
        }
      }
      await dropSchema(pool, schema);
    } finally {
      await pool.end();
    }
  }

  return {
    name: `BullMQ ${packageVersion('bullmq')}`,
    settings:
      `${env.workers} worker processes × concurrency ${tuning.concurrency}; addBulk per schedule() chunk; ` +
      `${ATTEMPTS} attempts, exponential backoff from ${BACKOFF_MS / 1000} s; removeOnComplete; per process ` +
      `pg pool ${DUE_WORK_POOLS.postgres}, ${DUE_WORK_POOLS.http} keep-alive HTTP connections`,

    async start() {
      const suffix = randomBytes(4).toString('hex');
      const started: Running = {
        schema: `bench_bullmq_${suffix}`,
        queueName: `bench-${suffix}`,
        pool: createPgPool(env.databaseUrl, DUE_WORK_POOLS.postgres),
        queue: null,
        workers: [],
      };
      run = started;
      try {
        await createMessagesTable(started.pool, started.schema);
        started.queue = new Queue<DueJobData>(started.queueName, {
          connection: { url: env.redisUrl },
          defaultJobOptions: {
            attempts: ATTEMPTS,
            backoff: { type: 'exponential', delay: BACKOFF_MS },
            removeOnComplete: true,
            removeOnFail: { count: KEEP_FAILED },
          },
        });
        await started.queue.waitUntilReady();
        const config: BullmqWorkerConfig = {
          databaseUrl: env.databaseUrl,
          schema: started.schema,
          simUrl: env.simUrl,
          appId: env.appId,
          secret: env.secret,
          redisUrl: env.redisUrl,
          queueName: started.queueName,
          concurrency: tuning.concurrency,
        };
        started.workers = await forkWorkers(
          path.join(env.benchDir, 'peers/bullmq-worker.js'),
          env.workers,
          config,
        );
      } catch (err) {
        await stop();
        throw err;
      }
    },

    async schedule(messages) {
      const { pool, schema, queue } = current();
      if (!queue) throw new Error('BullMQ peer: the queue is not open');
      const ids = await recordScheduled(pool, schema, messages);
      const now = Date.now();
      await queue.addBulk(
        messages.map((m, i) => ({
          name: 'due',
          data: { id: ids[i] },
          opts: { jobId: ids[i], delay: Math.max(0, m.dueAt - now) },
        })),
      );
      return ids;
    },

    async cancelById(ids) {
      const { pool, schema } = current();
      await cancelByIds(pool, schema, ids);
    },

    async cancelByKey(key) {
      const { pool, schema } = current();
      await cancelByKey(pool, schema, key);
    },

    stop,
  };
}
