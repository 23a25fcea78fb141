import path from 'node:path';
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { BenchEnv, SystemUnderTest } from '../system';
import { DUE_WORK_POOLS, dropSchema, type DueJobData } from './due-work';
import { packageVersion } from '../package-version';
import type { PgBossWorkerConfig } from './pg-boss-worker';
import { createPeerSystem } from './peer-system';

/** How the pg-boss peer is tuned (the defaults are what the benchmark runs). */
export interface PgBossTuning {
  /** `work()` calls per worker process, i.e. batches in flight at once. */
  readonly loops: number;
  readonly batchSize: number;
  /** How often an idle `work()` polls; 0.5 s is the least pg-boss 10 accepts. */
  readonly pollingIntervalSeconds: number;
}

/**
 * The tuning the benchmark reports: wechat-drip's worker shape (4 batches of 200 in flight per process)
 * and pg-boss's fastest polling. A `work()` loop that finishes a batch early waits out the rest of its
 * polling interval, so a burst drains at no more than processes × loops × batchSize per 0.5 s.
 */
export const PG_BOSS_TUNING: PgBossTuning = { loops: 4, batchSize: 200, pollingIntervalSeconds: 0.5 };

/** pg-boss's own pool, per process. */
const BOSS_POOL_SIZE = 10;
/** Retries of a job whose send failed (10 attempts in all, like BullMQ's), backing off from 1 s. */
const RETRY = { retryLimit: 9, retryDelay: 1, retryBackoff: true } as const;

/** The started pg-boss of the front door, in a schema of its own. */
interface Boss {
  readonly boss: PgBoss;
  readonly schema: string;
}

/** Stops the front door's pg-boss and drops its schema (jobs, queues). */
async function closeBoss({ boss, schema }: Boss, pool: pg.Pool): Promise<void> {
  await boss.stop({ graceful: false });
  await dropSchema(pool, schema);
}

/** All jobs go to one queue (per pg-boss schema). */
const QUEUE = 'bench-due';

/**
 * pg-boss jobs deferred with `startAfter`, as its docs recommend: a schema of its own, `createQueue`
 * (with the retry policy), `insert` of a whole chunk, and `env.workers` processes polling with
 * `work({ batchSize })`. Each batch claims, sends and records its messages through due-work.
 */
export function createPgBossSystem(env: BenchEnv, tuning: PgBossTuning = PG_BOSS_TUNING): SystemUnderTest {
  return createPeerSystem<Boss>(env, {
    name: `pg-boss ${packageVersion('pg-boss')}`,
    settings:
      `${env.workers} worker processes × ${tuning.loops} work() loops, batchSize ${tuning.batchSize}, ` +
      `polling every ${tuning.pollingIntervalSeconds} s; insert per schedule() chunk; ` +
      `${RETRY.retryLimit} retries, backoff from ${RETRY.retryDelay} s; per process pg-boss pool ` +
      `${BOSS_POOL_SIZE}, pg pool ${DUE_WORK_POOLS.postgres}, ${DUE_WORK_POOLS.http} keep-alive HTTP connections`,
    schemaPrefix: 'bench_pgboss',
    workerEntry: path.join('peers', 'pg-boss-worker.js'),

    async open(suffix, pool) {
      // The front door only inserts: no maintenance (the workers supervise) and no cron.
      const schema = `pgboss_${suffix}`;
      const started: Boss = {
        boss: new PgBoss({
          connectionString: env.databaseUrl,
          schema,
          max: BOSS_POOL_SIZE,
          supervise: false,
          schedule: false,
        }),
        schema,
      };
      started.boss.on('error', (err) => process.stderr.write(`pg-boss: ${err.message}\n`));
      try {
        await started.boss.start();
        await started.boss.createQueue(QUEUE, { name: QUEUE, ...RETRY });
        return started;
      } catch (err) {
        await closeBoss(started, pool);
        throw err;
      }
    },

    workerConfig: ({ schema }, due): PgBossWorkerConfig => ({
      ...due,
      bossSchema: schema,
      queueName: QUEUE,
      bossPoolSize: BOSS_POOL_SIZE,
      ...tuning,
    }),

    async enqueue({ boss }, messages, ids) {
      await boss.insert(
        messages.map((m, i) => ({
          id: ids[i],
          name: QUEUE,
          data: { id: ids[i] } satisfies DueJobData,
          startAfter: new Date(m.dueAt),
        })),
      );
    },

    singleCall: 'send',
    async enqueueOne({ boss }, message, id) {
      await boss.send(QUEUE, { id } satisfies DueJobData, { id, startAfter: new Date(message.dueAt) });
    },

    close: closeBoss,
  });
}
