/**
 * One pg-boss worker process of the benchmark's peer: `loops` polling workers (`boss.work()` calls), each
 * fetching batches of due jobs and doing the due work for the whole batch at once. Forked by pg-boss.ts.
 */
import PgBoss from 'pg-boss';
import { createDueWork, type DueJobData, type DueWorkOptions } from './due-work';
import { runWorkerProcess } from './worker-processes';

/** What pg-boss.ts hands each worker process. */
export interface PgBossWorkerConfig extends DueWorkOptions {
  readonly bossSchema: string;
  readonly queueName: string;
  /** pg-boss's own pool in this process. */
  readonly bossPoolSize: number;
  /** `work()` calls: batches in flight at once in this process. */
  readonly loops: number;
  readonly batchSize: number;
  readonly pollingIntervalSeconds: number;
}

async function start(config: PgBossWorkerConfig): Promise<() => Promise<void>> {
  const work = createDueWork(config);
  // The parent installed the schema and runs no maintenance; these processes do (supervise, the default).
  const boss = new PgBoss({
    connectionString: config.databaseUrl,
    schema: config.bossSchema,
    max: config.bossPoolSize,
    migrate: false,
    schedule: false,
  });
  boss.on('error', (err) => process.stderr.write(`pg-boss worker: ${err.message}\n`));
  await boss.start();
  const options = { batchSize: config.batchSize, pollingIntervalSeconds: config.pollingIntervalSeconds };
  // A batch handler is all or nothing in v10: a throw fails (and retries) every job of the batch. The
  // jobs whose message went out are then skipped by the claim on their retry, so nothing is sent twice.
  for (let i = 0; i < config.loops; i++)
    await boss.work<DueJobData>(config.queueName, options, (jobs) =>
      work.deliver(jobs.map((j) => j.data.id)),
    );
  return async () => {
    // Waits for the batches in flight, then closes pg-boss's pool.
    await boss.stop({ graceful: true, wait: true });
    await work.close();
  };
}

if (require.main === module) runWorkerProcess('pg-boss worker', start);
