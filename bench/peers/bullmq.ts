import path from 'node:path';
import { Queue } from 'bullmq';
import type { BenchEnv, SystemUnderTest } from '../system';
import { DUE_WORK_POOLS, type DueJobData } from './due-work';
import type { BullmqWorkerConfig } from './bullmq-worker';
import { packageVersion } from '../package-version';
import { createPeerSystem } from './peer-system';

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

/**
 * BullMQ delayed jobs, as its docs recommend: `Queue.addBulk` with a `delay` and the message id as
 * `jobId`, and `env.workers` processes each running one `Worker` with `concurrency`. Each job claims,
 * sends and records its one message through due-work.
 */
export function createBullmqSystem(env: BenchEnv, tuning: BullmqTuning = BULLMQ_TUNING): SystemUnderTest {
  return createPeerSystem<Queue<DueJobData>>(env, {
    name: `BullMQ ${packageVersion('bullmq')}`,
    settings:
      `${env.workers} worker processes × concurrency ${tuning.concurrency}; addBulk per schedule() chunk; ` +
      `${ATTEMPTS} attempts, exponential backoff from ${BACKOFF_MS / 1000} s; removeOnComplete; per process ` +
      `pg pool ${DUE_WORK_POOLS.postgres}, ${DUE_WORK_POOLS.http} keep-alive HTTP connections`,
    schemaPrefix: 'bench_bullmq',
    workerEntry: path.join('peers', 'bullmq-worker.js'),

    async open(suffix) {
      const queue = new Queue<DueJobData>(`bench-${suffix}`, {
        connection: { url: env.redisUrl },
        defaultJobOptions: {
          attempts: ATTEMPTS,
          backoff: { type: 'exponential', delay: BACKOFF_MS },
          removeOnComplete: true,
          removeOnFail: { count: KEEP_FAILED },
        },
      });
      try {
        await queue.waitUntilReady();
        return queue;
      } catch (err) {
        await queue.close();
        throw err;
      }
    },

    workerConfig: (queue, due): BullmqWorkerConfig => ({
      ...due,
      redisUrl: env.redisUrl,
      queueName: queue.name,
      concurrency: tuning.concurrency,
    }),

    async enqueue(queue, messages, ids) {
      const now = Date.now();
      await queue.addBulk(
        messages.map((m, i) => ({
          name: 'due',
          data: { id: ids[i] },
          opts: { jobId: ids[i], delay: Math.max(0, m.dueAt - now) },
        })),
      );
    },

    singleCall: 'queue.add',
    async enqueueOne(queue, message, id) {
      await queue.add('due', { id }, { jobId: id, delay: Math.max(0, message.dueAt - Date.now()) });
    },

    async close(queue) {
      try {
        await queue.obliterate({ force: true });
      } finally {
        await queue.close();
      }
    },
  });
}
