import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Where the machine's CPU time went over a stretch of a scenario, read from /proc (Linux): core-seconds
 * per component. It shows what a system's throughput is bounded by on these two shared cores.
 */
export interface CpuUse {
  /** Wall-clock length of the stretch, seconds. */
  readonly seconds: number;
  /** Cores on the machine: `seconds × cores` core-seconds were available. */
  readonly cores: number;
  readonly postgres: number;
  readonly rabbitmq: number;
  readonly redis: number;
  /** The system's own processes: wechat-drip's api and workers, the peers' workers. */
  readonly system: number;
  readonly simulator: number;
  /** The orchestrator (it polls the simulator; the peers' producers run in it, idle by then). */
  readonly bench: number;
  /** Everything else, and any process at lowered priority (nice > 0): other work on the machine. */
  readonly other: number;
}

export type CpuComponent = Exclude<keyof CpuUse, 'seconds' | 'cores'>;
export const CPU_COMPONENTS: readonly CpuComponent[] = [
  'system',
  'postgres',
  'rabbitmq',
  'redis',
  'simulator',
  'bench',
  'other',
];

interface Proc {
  readonly ppid: number;
  readonly comm: string;
  /** Start time (clock ticks since boot): with the pid, identifies the process. */
  readonly start: number;
  /** utime + stime, clock ticks. */
  readonly ticks: number;
  /** Its nice value: above 0 it is background work at lowered priority, not part of the comparison. */
  readonly nice: number;
}

export interface CpuSnapshot {
  readonly at: number;
  readonly procs: ReadonlyMap<number, Proc>;
}

/** Linux's USER_HZ: /proc counts CPU time in these ticks on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;
const RABBITMQ = new Set(['beam.smp', 'erl_child_setup', 'epmd', 'inet_gethost']);

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const f = stat.slice(close + 2).split(' ');
    return {
      comm: stat.slice(stat.indexOf('(') + 1, close),
      ppid: Number(f[1]),
      ticks: Number(f[11]) + Number(f[12]),
      nice: Number(f[16]),
      start: Number(f[19]),
    };
  } catch {
    return undefined; // exited since the directory was listed
  }
}

/** Every process's CPU time so far. Empty where there is no /proc (the table then says so). */
export function cpuSnapshot(): CpuSnapshot {
  const procs = new Map<number, Proc>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    // not Linux
  }
  for (const pid of pids) {
    const proc = readProc(Number(pid));
    if (proc) procs.set(Number(pid), proc);
  }
  return { at: performance.now(), procs };
}

function descendsFrom(pid: number, ancestor: number, procs: ReadonlyMap<number, Proc>): boolean {
  for (let p = procs.get(pid)?.ppid; p !== undefined && p > 1; p = procs.get(p)?.ppid)
    if (p === ancestor) return true;
  return false;
}

function componentOf(
  pid: number,
  proc: Proc,
  procs: ReadonlyMap<number, Proc>,
  simulatorPid: number,
): CpuComponent {
  // Another Postgres or RabbitMQ on the machine, run at lowered priority, is not the one measured.
  if (proc.nice > 0) return 'other';
  if (proc.comm === 'postgres') return 'postgres';
  if (RABBITMQ.has(proc.comm)) return 'rabbitmq';
  if (proc.comm === 'redis-server') return 'redis';
  if (pid === simulatorPid) return 'simulator';
  if (pid === process.pid) return 'bench';
  return descendsFrom(pid, process.pid, procs) ? 'system' : 'other';
}

/**
 * CPU used between two snapshots, by component. Processes that started in between count whole; ones
 * that started and ended in between are missed (the systems keep their connections and workers).
 */
export function cpuBetween(from: CpuSnapshot, to: CpuSnapshot, simulatorPid: number): CpuUse {
  const use: Record<CpuComponent, number> = {
    system: 0,
    postgres: 0,
    rabbitmq: 0,
    redis: 0,
    simulator: 0,
    bench: 0,
    other: 0,
  };
  for (const [pid, proc] of to.procs) {
    const before = from.procs.get(pid);
    const ticks = before && before.start === proc.start ? proc.ticks - before.ticks : proc.ticks;
    if (ticks <= 0) continue;
    const component = componentOf(pid, proc, to.procs, simulatorPid);
    use[component] += ticks / TICKS_PER_SECOND;
  }
  return { seconds: (to.at - from.at) / 1000, cores: availableParallelism(), ...use };
}
