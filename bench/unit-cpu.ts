import { cpuBetween, type CpuSnapshot } from './cpu';
import { cpuOf } from './unit-probes';

/** CPU µs per message of each component in one window. */
export interface CpuPerMessage {
  readonly api: number;
  readonly worker: number;
  /** The Postgres backends the system's processes were connected to. */
  readonly postgresBackends: number;
  /** Every Postgres process (background writers, autovacuum, and other work on the machine): an upper bound. */
  readonly postgresAll: number;
  /** The RabbitMQ node this system uses (its process, found by its port; shared with other work: an upper bound). */
  readonly rabbitmq: number;
  readonly simulator: number;
  readonly seconds: number;
}

/** Core-seconds per second each component used while the system was idle (other work on the machine). */
export type Baseline = Omit<CpuPerMessage, 'seconds'>;

/** What each component used between two snapshots, core-seconds. */
export function cpuUsed(
  from: CpuSnapshot,
  to: CpuSnapshot,
  pids: { api: number[]; worker: number[]; backends: number[]; broker: number[] },
  simulatorPid: number,
): CpuPerMessage {
  const all = cpuBetween(from, to, simulatorPid);
  return {
    api: cpuOf(from, to, pids.api),
    worker: cpuOf(from, to, pids.worker),
    postgresBackends: cpuOf(from, to, pids.backends),
    postgresAll: all.postgres,
    rabbitmq: pids.broker.length > 0 ? cpuOf(from, to, pids.broker) : all.rabbitmq,
    simulator: all.simulator,
    seconds: all.seconds,
  };
}

/** µs per message of each component in a window, less the baseline over the window's length. */
export function perMessage(used: CpuPerMessage, baseline: Baseline, n: number): CpuPerMessage {
  const us = (key: keyof Baseline) => (Math.max(0, used[key] - baseline[key] * used.seconds) * 1e6) / n;
  return {
    api: us('api'),
    worker: us('worker'),
    postgresBackends: us('postgresBackends'),
    postgresAll: us('postgresAll'),
    rabbitmq: us('rabbitmq'),
    simulator: us('simulator'),
    seconds: used.seconds,
  };
}
