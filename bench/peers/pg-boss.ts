import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import PgBoss from 'pg-boss';
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
import { packageVersion } from '../package-version';
import type { DueJobData, PgBossWorkerConfig } from './pg-boss-worker';
import { forkWorkers, stopWorkers } from './worker-processes';

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

interface Running {
  readonly schema: string;
  readonly bossSchema: string;
  readonly queueName: string;
  readonly pool: pg.Pool;
  boss: PgBoss | null;
  workers: ChildProcess[];
}

/**
 * pg-boss jobs deferred with `startAfter`, as its docs recommend: a schema of its own, `createQueue`
 * (with the retry policy), `insert` of a whole chunk, and `env.workers` processes polling with
 * `work({ batchSize })`. Each batch claims, sends and records its messages through due-work.
 */
export function createPgBossSystem(env: BenchEnv, tuning: PgBossTuning = PG_BOSS_TUNING): SystemUnderTest {
  let run: Running | null = null;
  const current = (): Running => {
    if (!run) throw new Error('pg-boss peer: start() first');
    return run;
  };

  async function stop(): Promise<void> {
    if (!run) return;
    const { pool, schema, bossSchema, boss, workers } = run;
    run = null;
    try {
      await stopWorkers(workers);
      await boss?.stop({ graceful: false });
      await dropSchema(pool, bossSchema);
      await dropSchema(pool, schema);
    } finally {
      await pool.end();
    }
  }

  return {
    name: `pg-boss ${packageVersion('pg-boss')}`,
    settings:
      `${env.workers} worker processes × ${tuning.loops} work() loops, batchSize ${tuning.batchSize}, ` +
      `polling every ${tuning.pollingIntervalSeconds} s; insert per schedule() chunk; ` +
      `${RETRY.retryLimit} retries, backoff from ${RETRY.retryDelay} s; per process pg-boss pool ` +
      `${BOSS_POOL_SIZE}, pg pool ${DUE_WORK_POOLS.postgres}, ${DUE_WORK_POOLS.http} keep-alive HTTP connections`,

    async start() {
      const suffix = randomBytes(4).toString('hex');
      const started: Running = {
        schema: `bench_pgboss_${suffix}`,
        bossSchema: `pgboss_${suffix}`,
        queueName: 'bench-due',
        pool: createPgPool(env.databaseUrl, DUE_WORK_POOLS.postgres),
        boss: null,
        workers: [],
      };
      run = started;
      try {
        await createMessagesTable(started.pool, started.schema);
        // The front door only inserts: no maintenance (the workers supervise) and no cron.
        started.boss = new PgBoss({
          connectionString: env.databaseUrl,
          schema: started.bossSchema,
          max: BOSS_POOL_SIZE,
          supervise: false,
          schedule: false,
        });
        started.boss.on('error', (err) => process.stderr.write(`pg-boss: ${err.message}\n`));
        await started.boss.start();
        await started.boss.createQueue(started.queueName, { name: started.queueName, ...RETRY });
        const config: PgBossWorkerConfig = {
          databaseUrl: env.databaseUrl,
          schema: started.schema,
          simUrl: env.simUrl,
          appId: env.appId,
          secret: env.secret,
          bossSchema: started.bossSchema,
          queueName: started.queueName,
          bossPoolSize: BOSS_POOL_SIZE,
          ...tuning,
        };
        started.workers = await forkWorkers(
          path.join(env.benchDir, 'peers/pg-boss-worker.js'),
          env.workers,
          config,
        );
      } catch (err) {
        await stop();
        throw err;
      }
    },

    async schedule(messages) {
      const { pool, schema, boss, queueName } = current();
      if (!boss) throw new Error('pg-boss peer: pg-boss is not started');
      const ids = await recordScheduled(pool, schema, messages);
      await boss.insert(
        messages.map((m, i) => ({
          id: ids[i],
          name: queueName,
          data: { id: ids[i] } satisfies DueJobData,
          startAfter: new Date(m.dueAt),
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
