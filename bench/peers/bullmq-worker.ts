/**
 * One BullMQ worker process of the benchmark's peer: a `Worker` with `concurrency`, each job the due work
 * for its one message. Forked by bullmq.ts (see worker-processes.ts).
 */
import { Worker } from 'bullmq';
import { createDueWork, type DueJobData, type DueWorkOptions } from './due-work';
import { runWorkerProcess } from './worker-processes';

/** What bullmq.ts hands each worker process. */
export interface BullmqWorkerConfig extends DueWorkOptions {
  readonly redisUrl: string;
  readonly queueName: string;
  readonly concurrency: number;
}

async function start(config: BullmqWorkerConfig): Promise<() => Promise<void>> {
  const work = createDueWork(config);
  const worker = new Worker<DueJobData>(config.queueName, (job) => work.deliver([job.data.id]), {
    // BullMQ's docs: a worker's connection must not give up on commands (maxRetriesPerRequest null).
    connection: { url: config.redisUrl, maxRetriesPerRequest: null },
    concurrency: config.concurrency,
  });
  worker.on('error', (err) => process.stderr.write(`bullmq worker: ${err.message}\n`));
  await worker.waitUntilReady();
  return async () => {
    await worker.close();
    await work.close();
  };
}

if (require.main === module) runWorkerProcess('bullmq worker', start);
