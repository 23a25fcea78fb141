import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import type { CpuSnapshot } from './cpu';

const run = promisify(execFile);
/** Linux's USER_HZ (see cpu.ts). */
const TICKS_PER_SECOND = 100;

/**
 * Probes for the per-unit costs (scenario 9), each narrowed to what one wechat-drip system owns, because
 * the machine's Postgres and RabbitMQ are shared with other work: the relations of its schema, the
 * queues under its prefix, the Postgres backends its processes are connected to.
 */

/** CPU seconds the processes `pids` used between two snapshots (a process started in between counts whole). */
export function cpuOf(from: CpuSnapshot, to: CpuSnapshot, pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const now = to.procs.get(pid);
    if (!now) continue;
    const before = from.procs.get(pid);
    ticks += before && before.start === now.start ? now.ticks - before.ticks : now.ticks;
  }
  return ticks / TICKS_PER_SECOND;
}

/** A directory's entries; none when it is gone (a process that exited). */
function listOrNone(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A file's lines; none when it cannot be read. */
function linesOrNone(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').trim().split('\n');
  } catch {
    return [];
  }
}

/** Local TCP ports of `pids`' sockets connected to `remotePort` (read from /proc/<pid>/fd and /proc/net/tcp*). */
function localPortsTo(pids: readonly number[], remotePort: number): number[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    for (const fd of listOrNone(`/proc/${pid}/fd`)) {
      const inode = socketInode(`/proc/${pid}/fd/${fd}`);
      if (inode) inodes.add(inode);
    }
  }
  const ports: number[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of linesOrNone(file).slice(1)) {
      const f = line.trim().split(/\s+/);
      const local = parseInt(f[1].split(':')[1], 16);
      const remote = parseInt(f[2].split(':')[1], 16);
      if (remote === remotePort && inodes.has(f[9])) ports.push(local);
    }
  }
  return ports;
}

/**
 * The pids of the processes listening on TCP `port` on this machine (the broker node on 5672, not the
 * other nodes other work may run).
 */
export function pidsListeningOn(port: number): number[] {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of linesOrNone(file).slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && parseInt(f[1].split(':')[1], 16) === port) inodes.add(f[9]);
    }
  const pids: number[] = [];
  for (const pid of listOrNone('/proc').filter((name) => /^\d+$/.test(name))) {
    const fds = listOrNone(`/proc/${pid}/fd`);
    if (fds.some((fd) => inodes.has(socketInode(`/proc/${pid}/fd/${fd}`) ?? ''))) pids.push(Number(pid));
  }
  return pids;
}

/** The inode of the socket an fd link names, or null. */
function socketInode(link: string): string | null {
  try {
    return /^socket:\[(\d+)\]$/.exec(readlinkSync(link))?.[1] ?? null;
  } catch {
    return null; // closed since listed
  }
}

/** The pids of the Postgres backends serving the processes `pids` (matched by their client ports). */
export async function backendsOf(databaseUrl: string, pids: readonly number[]): Promise<number[]> {
  const ports = localPortsTo(pids, Number(new URL(databaseUrl).port || 5432));
  if (ports.length === 0) return [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])`,
      [ports],
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/**
 * Bytes of every table (heap, TOAST, free-space and visibility maps) and index of a schema, by name; an
 * index's name is prefixed `index:`.
 */
export async function relationSizes(databaseUrl: string, schema: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; bytes: string }>(
      `SELECT CASE c.relkind WHEN 'i' THEN 'index:' ELSE '' END || c.relname AS name,
              (CASE c.relkind WHEN 'r' THEN pg_table_size(c.oid) ELSE pg_relation_size(c.oid) END)::text AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'i')`,
      [schema],
    );
    return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
  } finally {
    await client.end();
  }
}

/** `after − before` per relation, only those that grew. */
export function sizeGrowth(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const grew: Record<string, number> = {};
  for (const [name, bytes] of after) {
    const by = bytes - (before.get(name) ?? 0);
    if (by > 0) grew[name] = by;
  }
  return grew;
}

/** Messages and memory of the queues whose names start with `prefix` (`rabbitmqctl list_queues`). */
export async function queuesUnder(prefix: string): Promise<{ messages: number; memory: number }> {
  const { stdout } = await run(
    'rabbitmqctl',
    ['list_queues', 'name', 'messages', 'memory', '--formatter', 'json', '--quiet'],
    { maxBuffer: 32 << 20 },
  );
  const queues = JSON.parse(stdout) as { name: string; messages: number; memory: number }[];
  return queues
    .filter((q) => q.name.startsWith(`${prefix}.`))
    .reduce((sum, q) => ({ messages: sum.messages + q.messages, memory: sum.memory + q.memory }), {
      messages: 0,
      memory: 0,
    });
}

/** The broker node's memory by category, bytes: its RSS, and what its quorum queues hold (processes + ETS). */
export async function brokerMemory(): Promise<{ rss: number; quorum: number }> {
  const { stdout } = await run('rabbitmqctl', ['status', '--formatter', 'json'], { maxBuffer: 8 << 20 });
  const memory = (JSON.parse(stdout) as { memory?: Record<string, number | Record<string, number>> }).memory;
  const total = memory?.total as Record<string, number> | undefined;
  const n = (key: string) => Number(memory?.[key] ?? 0);
  return {
    rss: total?.rss ?? NaN,
    quorum: n('quorum_queue_procs') + n('quorum_ets') + n('quorum_queue_dlx_procs'),
  };
}

/** The machine's load averages (1, 5, 15 min), to state the conditions a measurement was taken in. */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '–';
  }
}
