import { CPU_COMPONENTS, cpuBetween, cpuSnapshot, type CpuUse } from './cpu';
import { growth, readFootprint, type Footprint } from './footprint';
import type { SimulatorProcess } from './simulator';
import type { BenchEnv, BenchMessage, SystemUnderTest } from './system';
import { percentile, tally, type Tally } from './tally';
import { walMark, walPerMessage } from './wal';

/** How big each scenario is (the issue's numbers at BENCH_SCALE=1). */
export interface Sizes {
  readonly schedule: number;
  readonly burst: number;
  readonly steadyRate: number;
  /** The steady scenario's second, faster rate (its own scenario, `steady-2000`). */
  readonly fastSteadyRate: number;
  readonly steadySeconds: number;
  readonly backlog: number;
  /** The backlog's messages fall due over this many days, from a day ahead. */
  readonly backlogDays: number;
  /** The burst run before and after the backlog fills. */
  readonly backlogBurst: number;
  /** Scenario 7: messages scheduled one per call, and calls in flight at once. */
  readonly single: number;
  readonly singleConcurrency: number;
  /** Messages per `schedule()` call, and calls in flight at once (the same for every system). */
  readonly chunk: number;
  readonly concurrency: number;
}

export interface Scenario {
  readonly system: SystemUnderTest;
  readonly sim: SimulatorProcess;
  readonly env: BenchEnv;
  readonly sizes: Sizes;
  /** Unique per run and system: prefixes every tag, openid and cancel key. */
  readonly tag: string;
  readonly log: (line: string) => void;
}

type Schedule = (messages: readonly BenchMessage[]) => Promise<string[]>;

const DAY_MS = 86_400_000;
/** Waiting for arrivals ends this long after the last new one (a system that stalls is reported short). */
const STALL_MS = 30_000;
/** After the last expected arrival, a duplicate would come within this. */
const DUPLICATE_WATCH_MS = 3_000;

function describeCpu(cpu: CpuUse): string {
  return CPU_COMPONENTS.map((c) => `${c} ${cpu[c].toFixed(1)}`).join(', ');
}

function message(s: Scenario, i: number, dueAt: number, cancelKey?: string): BenchMessage {
  return { tag: `${s.tag}-${i}`, openid: `o-${s.tag}-${i % 1000}`, dueAt, cancelKey };
}

/** Schedules `count` messages made by `make` through `via`, in chunks; the ids (when kept) and the rate. */
async function scheduleAll(
  s: Scenario,
  count: number,
  make: (i: number) => BenchMessage,
  via: Schedule,
  keepIds = true,
): Promise<{ ids: string[]; perSecond: number; doneAt: number }> {
  const ids: string[] = keepIds ? new Array<string>(count) : [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const from = next;
      next = Math.min(count, next + s.sizes.chunk);
      const chunk = Array.from({ length: next - from }, (_, k) => make(from + k));
      const got = await via(chunk);
      if (keepIds) got.forEach((id, k) => (ids[from + k] = id));
    }
  };
  await Promise.all(Array.from({ length: s.sizes.concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { ids, perSecond: count / seconds, doneAt: Date.now() };
}

/**
 * Waits until `expected` sends arrived (or arrivals stall), calls `arrived`, then watches for duplicates a
 * little longer.
 */
export async function awaitArrivals(
  s: Scenario,
  expected: number,
  notBefore: number,
  arrived = () => {},
): Promise<void> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const n = await s.sim.count();
    if (n !== last) [last, lastChange] = [n, Date.now()];
    if (n >= expected && Date.now() >= notBefore) break;
    if (Date.now() > Math.max(notBefore, lastChange) + STALL_MS) {
      s.log(`  arrivals stalled at ${n} of ${expected}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  arrived();
  await new Promise((r) => setTimeout(r, DUPLICATE_WATCH_MS));
}

async function counted(s: Scenario, due: Map<string, number>, cancelled = new Set<string>()): Promise<Tally> {
  return tally(await s.sim.received(), due, cancelled);
}

export interface ThroughputResult {
  /** Messages per second durably accepted through the front door. */
  readonly perSecond: number;
  /** wechat-drip only: through the library's publish path (commit + broker confirms). */
  readonly publishPathPerSecond?: number;
  /** Postgres WAL bytes per message through the front door, and through the publish path (wal.ts). */
  readonly walBytesPerMessage?: number;
  readonly publishPathWalBytesPerMessage?: number;
}

/** Scenario 1: `sizes.schedule` messages due a day ahead, as fast as the front door takes them. */
export async function scheduleThroughput(s: Scenario, publishPath?: Schedule): Promise<ThroughputResult> {
  const dueAt = Date.now() + DAY_MS;
  const wal = await walMark(s.env.databaseUrl);
  const front = await scheduleAll(
    s,
    s.sizes.schedule,
    (i) => message(s, i, dueAt + i),
    s.system.schedule,
    false,
  );
  const walFront = await walMark(s.env.databaseUrl);
  const walBytesPerMessage = walPerMessage(wal, walFront, s.sizes.schedule);
  s.log(`  schedule: ${Math.round(front.perSecond)}/s, WAL ${Math.round(walBytesPerMessage)} B/message`);
  if (!publishPath) return { perSecond: front.perSecond, walBytesPerMessage };
  const lib = await scheduleAll(
    s,
    s.sizes.schedule,
    (i) => message(s, -i - 1, dueAt + i),
    publishPath,
    false,
  );
  const publishPathWalBytesPerMessage = walPerMessage(
    walFront,
    await walMark(s.env.databaseUrl),
    s.sizes.schedule,
  );
  s.log(
    `  publish path: ${Math.round(lib.perSecond)}/s, WAL ${Math.round(publishPathWalBytesPerMessage)} B/message`,
  );
  return {
    perSecond: front.perSecond,
    publishPathPerSecond: lib.perSecond,
    walBytesPerMessage,
    publishPathWalBytesPerMessage,
  };
}

export interface BurstResult extends Tally {
  /** Delivered ÷ (last arrival − due), per second. */
  readonly sendsPerSecond: number;
  /** Last arrival − due, seconds. */
  readonly drainSeconds: number;
  /** Scheduling finished this many ms after the due time (0 when in time; the burst is then distorted). */
  readonly overrunMs: number;
  /** The machine's CPU from the due time until the last send arrived (absent in older results). */
  readonly cpu?: CpuUse;
  /** Postgres WAL bytes per message from the first schedule to the last send (wal.ts). */
  readonly walBytesPerMessage?: number;
}

/** Scenario 2 (and the backlog's probes): `count` messages due at one instant, `leadMs` from now. */
export async function burst(s: Scenario, count: number, leadMs: number, offset = 0): Promise<BurstResult> {
  await s.sim.clear();
  const dueAt = Date.now() + leadMs;
  const due = new Map<string, number>();
  const wal = await walMark(s.env.databaseUrl);
  const made = await scheduleAll(
    s,
    count,
    (i) => {
      const m = message(s, offset + i, dueAt);
      due.set(m.tag, dueAt);
      return m;
    },
    s.system.schedule,
    false,
  );
  const overrunMs = Math.max(0, made.doneAt - dueAt);
  await new Promise((r) => setTimeout(r, dueAt - Date.now()));
  const fromDue = cpuSnapshot();
  let cpu: CpuUse | undefined;
  await awaitArrivals(s, count, dueAt, () => (cpu = cpuBetween(fromDue, cpuSnapshot(), s.sim.pid)));
  const walBytesPerMessage = walPerMessage(wal, await walMark(s.env.databaseUrl), count);
  const t = await counted(s, due);
  const drainSeconds = (t.lastAt - dueAt) / 1000;
  s.log(
    `  burst ${count}: ${Math.round(t.delivered / drainSeconds)}/s, p50 ${t.lateness.p50} p99 ${t.lateness.p99} ms` +
      `, lost ${t.lost}, dup ${t.duplicates}${overrunMs > 0 ? `, scheduling overran by ${overrunMs} ms` : ''}`,
  );
  if (cpu) s.log(`  burst CPU (core-seconds over ${cpu.seconds.toFixed(1)} s): ${describeCpu(cpu)}`);
  return {
    ...t,
    sendsPerSecond: t.delivered / drainSeconds,
    drainSeconds,
    overrunMs,
    cpu,
    walBytesPerMessage,
  };
}

export interface SteadyResult extends Tally {
  readonly cancelled: number;
  readonly cancelledByKey: number;
  /** Cancellations per second over the whole cancel phase (one by one, in bulk, and by key). */
  readonly cancelPerSecond: number;
  /** One-by-one cancellations by id (20 in flight): how many, and their call latency, ms. */
  readonly cancelOne?: { count: number; p50: number; p99: number };
  /** Cancellations by id in bulk (the system's many-ids call, up to 10,000 per call): ids per second. */
  readonly cancelBulkPerSecond?: number;
  /** Cancellations by id the system did not confirm (the message was already being sent): none expected. */
  readonly cancelRefused?: number;
  readonly overrunMs: number;
}

/** One-by-one cancellations by id per steady run (enough for a p99); the other ids go in bulk. */
export const CANCEL_ONE_BY_ONE = 2000;

/** Time to leave for the cancel phase before the first message falls due, at `count` messages. */
export function cancelLeadMs(count: number): number {
  // One-by-one at a conservative 200/s, the bulk at 5,000/s, and 5 s to spare.
  const byId = Math.ceil(count / 20);
  const oneByOne = Math.min(CANCEL_ONE_BY_ONE, Math.ceil(byId / 2));
  return Math.round((oneByOne / 200 + (byId - oneByOne) / 5000) * 1000) + 5000;
}

/**
 * Scenarios 3 and 4: `steadyRate` (or `rate`) messages per second fall due for `steadySeconds`; 10 % of
 * them are cancelled before they fall due: half by key (30 keys) and half by id, of which up to
 * CANCEL_ONE_BY_ONE one request at a time (20 in flight, latency measured) and the rest in bulk calls.
 * A cancellation counts only when the system confirmed it; a sent message it did not confirm is
 * `cancelRefused`, not a broken promise.
 */
export async function steady(s: Scenario, leadMs: number, rate = s.sizes.steadyRate): Promise<SteadyResult> {
  await s.sim.clear();
  const steadyRate = rate;
  const { steadySeconds } = s.sizes;
  const count = steadyRate * steadySeconds;
  const t0 = Date.now() + leadMs + cancelLeadMs(count);
  const dueAt = (i: number) => t0 + Math.floor((i * 1000) / steadyRate);
  const byKey = (i: number) => i % 20 === 10;
  const byId = (i: number) => i % 20 === 0;
  const keyOf = (i: number) => `${s.tag}-k${Math.floor(i / 20) % 30}`;
  const made = await scheduleAll(
    s,
    count,
    (i) => message(s, i, dueAt(i), byKey(i) ? keyOf(i) : undefined),
    s.system.schedule,
  );
  const due = new Map<string, number>();
  const cancelled = new Set<string>();
  const tagOfId = new Map<string, string>();
  const idsToCancel: string[] = [];
  for (let i = 0; i < count; i++) {
    const tag = `${s.tag}-${i}`;
    if (byKey(i)) cancelled.add(tag);
    else if (!byId(i)) due.set(tag, dueAt(i));
    if (byId(i)) {
      idsToCancel.push(made.ids[i]);
      tagOfId.set(made.ids[i].toLowerCase(), tag);
    }
  }
  const oneByOne = idsToCancel.slice(0, Math.min(CANCEL_ONE_BY_ONE, Math.ceil(idsToCancel.length / 2)));
  const inBulk = idsToCancel.slice(oneByOne.length);
  const confirmed: string[] = [];
  const latencies: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < oneByOne.length) {
        const id = oneByOne[next++];
        const at = performance.now();
        const stopped = await s.system.cancelOne(id);
        latencies.push(performance.now() - at);
        if (stopped) confirmed.push(id);
      }
    }),
  );
  const bulkStarted = performance.now();
  confirmed.push(...(await s.system.cancelById(inBulk)));
  const bulkSeconds = (performance.now() - bulkStarted) / 1000;
  for (let k = 0; k < Math.min(30, count); k++) await s.system.cancelByKey(`${s.tag}-k${k}`);
  for (const id of confirmed) cancelled.add(tagOfId.get(id.toLowerCase())!);
  const cancelPerSecond = cancelled.size / ((performance.now() - started) / 1000);
  const overrunMs = Math.max(0, Date.now() - t0);
  const cancelRefused = idsToCancel.length - confirmed.length;
  await awaitArrivals(s, due.size, dueAt(count - 1));
  const t = await counted(s, due, cancelled);
  latencies.sort((a, b) => a - b);
  const cancelOne = {
    count: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
  s.log(
    `  steady ${count}: p50 ${t.lateness.p50} p99 ${t.lateness.p99} max ${t.lateness.max} ms, lost ${t.lost}` +
      `, dup ${t.duplicates}, cancelled-but-sent ${t.cancelledSent} of ${cancelled.size}` +
      `, cancel one by one p50 ${cancelOne.p50.toFixed(1)} p99 ${cancelOne.p99.toFixed(1)} ms` +
      `, in bulk ${Math.round(inBulk.length / bulkSeconds)}/s` +
      (cancelRefused > 0 ? `, ${cancelRefused} cancellations refused (already sending)` : '') +
      (overrunMs > 0 ? `, scheduling + cancelling overran by ${overrunMs} ms` : ''),
  );
  return {
    ...t,
    cancelled: cancelled.size,
    cancelledByKey: [...Array(count).keys()].filter(byKey).length,
    cancelPerSecond,
    cancelOne,
    cancelBulkPerSecond: inBulk.length / bulkSeconds,
    cancelRefused,
    overrunMs,
  };
}

export interface BacklogResult {
  readonly fillPerSecond: number;
  readonly growth: Footprint;
  readonly before: BurstResult;
  readonly after: BurstResult;
  /** The steady scenario before and after the backlog fills (absent in older results). */
  readonly steadyBefore?: SteadyResult;
  readonly steadyAfter?: SteadyResult;
  /** Pending messages, and the days over which they fall due (absent in older results: 1 day). */
  readonly count?: number;
  readonly days?: number;
}

/**
 * Scenario 5: a `backlogBurst` burst and the steady scenario, then `backlog` messages due over
 * `backlogDays` days from a day ahead, the stores' growth, and the same burst and steady run again on top
 * of the backlog.
 */
export async function backlog(s: Scenario, leadMs: (count: number) => number): Promise<BacklogResult> {
  const { backlogBurst, backlogDays, steadyRate, steadySeconds } = s.sizes;
  const count = s.sizes.backlog;
  const steadyLead = leadMs(steadyRate * steadySeconds) + 10_000;
  const before = await burst(s, backlogBurst, leadMs(backlogBurst));
  const steadyBefore = await steady({ ...s, tag: `${s.tag}-s0` }, steadyLead);
  const empty = await readFootprint(s.env, s.system.rabbitmqNode);
  const from = Date.now() + DAY_MS;
  const spreadMs = backlogDays * DAY_MS;
  const fill = await scheduleAll(
    s,
    count,
    (i) => message(s, 10_000_000 + i, from + Math.floor((i * spreadMs) / count)),
    s.system.schedule,
    false,
  );
  s.log(`  backlog of ${count} over ${backlogDays} days filled at ${Math.round(fill.perSecond)}/s`);
  const full = await readFootprint(s.env, s.system.rabbitmqNode);
  const after = await burst(s, backlogBurst, leadMs(backlogBurst), 20_000_000);
  const steadyAfter = await steady({ ...s, tag: `${s.tag}-s1` }, steadyLead);
  return {
    fillPerSecond: fill.perSecond,
    growth: growth(empty, full),
    before,
    after,
    steadyBefore,
    steadyAfter,
    count,
    days: backlogDays,
  };
}
