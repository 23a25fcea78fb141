import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';

const run = promisify(execFile);

/** Memory and disk of the three stores, bytes (NaN where it could not be read). */
export interface Footprint {
  readonly rabbitmqMemory: number;
  readonly rabbitmqDisk: number;
  readonly redisMemory: number;
  readonly postgresDisk: number;
}

async function orNaN(read: () => Promise<number>): Promise<number> {
  try {
    return await read();
  } catch {
    return NaN;
  }
}

/** `rabbitmqctl` for `node` (this machine's default node when empty). */
const ctlArgs = (node: string, args: string[]) => (node ? ['-n', node, ...args] : args);

async function rabbitmqMemory(node: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', ctlArgs(node, ['status', '--formatter', 'json']), {
    maxBuffer: 8 << 20,
  });
  const status = JSON.parse(stdout) as { memory?: { total?: { rss?: number; erlang?: number } } };
  return status.memory?.total?.rss ?? status.memory?.total?.erlang ?? NaN;
}

async function rabbitmqDisk(node: string): Promise<number> {
  const { stdout: dir } = await run(
    'rabbitmqctl',
    ctlArgs(node, ['eval', 'io:format("~s", [rabbit_mnesia:dir()]).']),
  );
  const { stdout } = await run('du', ['-sb', dir.trim().replace(/ok$/, '')]);
  return Number(stdout.split('\t')[0]);
}

async function redisMemory(url: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
  } finally {
    redis.disconnect();
  }
}

async function postgresDisk(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('CHECKPOINT').catch(() => undefined);
    const { rows } = await client.query<{ size: string }>(
      'SELECT pg_database_size(current_database())::text AS size',
    );
    return Number(rows[0].size);
  } finally {
    await client.end();
  }
}

/**
 * Reads all four numbers (RabbitMQ through rabbitmqctl on this machine: the node `rabbitmqNode`, e.g. the
 * plugin broker's, else the default one).
 */
export async function readFootprint(
  env: { databaseUrl: string; redisUrl: string },
  rabbitmqNode = '',
): Promise<Footprint> {
  return {
    rabbitmqMemory: await orNaN(() => rabbitmqMemory(rabbitmqNode)),
    rabbitmqDisk: await orNaN(() => rabbitmqDisk(rabbitmqNode)),
    redisMemory: await orNaN(() => redisMemory(env.redisUrl)),
    postgresDisk: await orNaN(() => postgresDisk(env.databaseUrl)),
  };
}

/** `after − before`, field by field. */
export function growth(before: Footprint, after: Footprint): Footprint {
  return {
    rabbitmqMemory: after.rabbitmqMemory - before.rabbitmqMemory,
    rabbitmqDisk: after.rabbitmqDisk - before.rabbitmqDisk,
    redisMemory: after.redisMemory - before.redisMemory,
    postgresDisk: after.postgresDisk - before.postgresDisk,
  };
}
