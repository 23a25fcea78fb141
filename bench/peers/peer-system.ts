import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type pg from 'pg';
import type { BenchEnv, BenchMessage, SystemUnderTest } from '../system';
import {
  DUE_WORK_POOLS,
  cancelByIds,
  cancelByKey,
  createMessagesTable,
  createPgPool,
  dropSchema,
  recordScheduled,
  type DueWorkOptions,
} from './due-work';
import { forkWorkers, stopWorkers } from './worker-processes';

/**
 * What one peer adds to the lifecycle both share: its own queue (`Q`: a BullMQ `Queue`, a started
 * pg-boss), its worker processes' entry and configuration, and how it enqueues a chunk.
 */
export interface PeerDriver<Q> {
  /** Shown in the table, with the version. */
  readonly name: string;
  readonly settings: string;
  /** Prefix of the schema holding the peer's messages table (`bench_bullmq` → `bench_bullmq_1a2b3c4d`). */
  readonly schemaPrefix: string;
  /** The compiled worker entry, relative to the compiled bench directory. */
  readonly workerEntry: string;
  /** Opens the peer's queue (unique per start by `suffix`); cleans up after itself if it fails. */
  open(suffix: string, pool: pg.Pool): Promise<Q>;
  /** What each worker process is handed: the due work's options and the peer's own. */
  workerConfig(queue: Q, due: DueWorkOptions): DueWorkOptions;
  /** Enqueues the chunk whose rows were just recorded under `ids`, each due at its `dueAt`. */
  enqueue(queue: Q, messages: readonly BenchMessage[], ids: readonly string[]): Promise<void>;
  /** Enqueues one message recorded under `id` through the peer's single-job call. */
  enqueueOne(queue: Q, message: BenchMessage, id: string): Promise<void>;
  /** The peer's single-job call, by name. */
  readonly singleCall: string;
  /** Deletes everything `open` created (after the workers stopped). */
  close(queue: Q, pool: pg.Pool): Promise<void>;
}

interface Running<Q> {
  readonly schema: string;
  readonly pool: pg.Pool;
  queue: Q | null;
  workers: ChildProcess[];
}

/**
 * A peer as a system under test: a messages table in a schema of its own (the status / cancellation
 * check every system does), the peer's queue and `env.workers` forked worker processes; cancellations
 * are direct UPDATEs of the table. `stop` removes all of it, also after a failed `start`.
 */
export function createPeerSystem<Q>(env: BenchEnv, driver: PeerDriver<Q>): SystemUnderTest {
  let run: Running<Q> | null = null;
  const current = (): Running<Q> => {
    if (!run) throw new Error(`${driver.name}: start() first`);
    return run;
  };

  async function stop(): Promise<void> {
    if (!run) return;
    const { pool, schema, queue, workers } = run;
    run = null;
    try {
      await stopWorkers(workers);
      if (queue !== null) await driver.close(queue, pool);
      await dropSchema(pool, schema);
    } finally {
      await pool.end();
    }
  }

  return {
    name: driver.name,
    settings: driver.settings,
    singleCall: driver.singleCall,

    async start() {
      const suffix = randomBytes(4).toString('hex');
      const started: Running<Q> = {
        schema: `${driver.schemaPrefix}_${suffix}`,
        pool: createPgPool(env.databaseUrl, DUE_WORK_POOLS.postgres),
        queue: null,
        workers: [],
      };
      run = started;
      try {
        await createMessagesTable(started.pool, started.schema);
        const queue = await driver.open(suffix, started.pool);
        started.queue = queue;
        const due: DueWorkOptions = {
          databaseUrl: env.databaseUrl,
          schema: started.schema,
          simUrl: env.simUrl,
          appId: env.appId,
          secret: env.secret,
        };
        started.workers = await forkWorkers(
          path.join(env.benchDir, driver.workerEntry),
          env.workers,
          driver.workerConfig(queue, due),
        );
      } catch (err) {
        await stop();
        throw err;
      }
    },

    async schedule(messages) {
      const { pool, schema, queue } = current();
      if (queue === null) throw new Error(`${driver.name}: its queue is not open`);
      const ids = await recordScheduled(pool, schema, messages);
      await driver.enqueue(queue, messages, ids);
      return ids;
    },

    async scheduleOne(message) {
      const { pool, schema, queue } = current();
      if (queue === null) throw new Error(`${driver.name}: its queue is not open`);
      const [id] = await recordScheduled(pool, schema, [message]);
      await driver.enqueueOne(queue, message, id);
      return id;
    },

    async cancelById(ids) {
      const { pool, schema } = current();
      return cancelByIds(pool, schema, ids);
    },

    async cancelOne(id) {
      const { pool, schema } = current();
      return (await cancelByIds(pool, schema, [id])).length === 1;
    },

    async cancelByKey(key) {
      const { pool, schema } = current();
      await cancelByKey(pool, schema, key);
    },

    stop,
  };
}
