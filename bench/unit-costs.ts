/**
 * Scenario 9, wechat-drip (levels) only: what one message and one follower cost, for the capacity plan
 * (docs/scaling.md). Three phases on one running system:
 * - lifecycle: `lifecycle` messages scheduled through the NDJSON front door, falling due at
 *   LIFECYCLE_RATE a few seconds later (about 20 to a wake-up: one batch's messages due within 20 ms
 *   share one), sent;
 *   the CPU of each component in each window (scheduling, waiting in the delay levels, first due → last
 *   send) less what it used while idle just before, the WAL, and what the tables grew by;
 * - pending: `pending` messages due a day ahead, about 20 to a wake-up, then a fifth as many with a
 *   wake-up each: Postgres bytes per row (table and each index), WAL, and the broker's memory and disk;
 * - followers: `followers` follows recorded through the store (the push, the follower row, the
 *   interaction) as the webhook records them: bytes and WAL per follower.
 * The machine's Postgres and RabbitMQ are shared, so each number is narrowed to this system where it can
 * be: its schema's relations, its prefix's queues, the Postgres backends its processes hold.
 */
import { groupWakeUps, WAKE_UP_WINDOW_MS } from '../src/broker/wake-up';
import { cpuSnapshot, type CpuSnapshot } from './cpu';
import type { DripSystem } from './drip';
import { readFootprint } from './footprint';
import { awaitArrivals, type Scenario } from './scenarios';
import { tally } from './tally';
import { type Baseline, type CpuPerMessage, cpuUsed, perMessage } from './unit-cpu';
import { type FollowerCosts, followers } from './unit-followers';
import {
  backendsOf,
  brokerMemory,
  loadAverage,
  pidsListeningOn,
  queuesUnder,
  relationSizes,
  sizeGrowth,
} from './unit-probes';
import { walMark } from './wal';

/** A realistic text follow-up: 100 CJK characters (300 bytes of UTF-8) after the bench's tag. */
const PADDING = '课'.repeat(100);
const DAY_MS = 86_400_000;

/**
 * The publishing horizon of the system this scenario runs: its pending messages are due a day ahead (and
 * up to an hour more), within it, so their wake-ups wait in the broker, whose cost per wake-up it measures.
 */
export const UNITS_HORIZON = '2d';
/** Messages falling due per second in the lifecycle phase. */
const LIFECYCLE_RATE = 1000;
/** The idle stretch before the lifecycle whose CPU is the baseline subtracted from each window. */
const BASELINE_MS = 5000;

export interface UnitCostsResult {
  readonly load: { readonly before: string; readonly after: string };
  readonly lifecycle: {
    readonly messages: number;
    readonly baseline: Baseline;
    readonly lost: number;
    readonly duplicates: number;
    readonly schedule: CpuPerMessage;
    readonly wait: CpuPerMessage;
    readonly due: CpuPerMessage;
    /** WAL bytes per message: scheduling, and from the due time to the last send. */
    readonly walSchedule: number;
    readonly walDue: number;
    /** Bytes per message each relation grew by, scheduled and sent (no vacuum in between). */
    readonly bytes: Record<string, number>;
  };
  readonly pending: {
    readonly messages: number;
    readonly wal: number;
    /** Bytes per pending message each relation grew by. */
    readonly bytes: Record<string, number>;
    /** Wake-ups the broker holds for them (messages due within 20 ms of each other share one). */
    readonly wakeUps: number;
    /** Per pending message, bytes: its queues' memory, the node's quorum-queue memory, RSS, data directory. */
    readonly queueMemory: number;
    readonly quorumMemory: number;
    readonly rss: number;
    readonly disk: number;
  };
  /** The same with one message per wake-up (absent in runs before it was added). */
  readonly pendingAlone?: UnitCostsResult['pending'];
  readonly followers: FollowerCosts;
}

const perEach = (bytes: Record<string, number>, n: number): Record<string, number> =>
  Object.fromEntries(Object.entries(bytes).map(([name, b]) => [name, b / n]));

/** Schedules messages through the front door in chunks, `concurrency` in flight. */
async function scheduleAll(
  s: Scenario,
  tags: readonly string[],
  dueAt: (i: number) => number,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tags.length) {
      const from = next;
      next = Math.min(tags.length, next + s.sizes.chunk);
      await s.system.schedule(
        tags
          .slice(from, next)
          .map((tag, k) => ({ tag, openid: `o-${s.tag}-${(from + k) % 1000}`, dueAt: dueAt(from + k) })),
      );
    }
  };
  await Promise.all(Array.from({ length: s.sizes.concurrency }, lane));
}

async function lifecycle(
  s: Scenario,
  drip: DripSystem,
  count: number,
): Promise<UnitCostsResult['lifecycle']> {
  await s.sim.clear();
  const { databaseUrl } = s.env;
  const schema = drip.schemaName();
  const tags = Array.from({ length: count }, (_, i) => `${s.tag}-l${i} ${PADDING}`);
  const backends = new Set<number>();
  const collect = async () => {
    const { api, worker } = drip.rolePids();
    for (const pid of await backendsOf(databaseUrl, [...api, ...worker])) backends.add(pid);
  };
  await collect();
  const broker = pidsListeningOn(Number(new URL(s.env.rabbitmqUrl).port || 5672));
  const pids = () => ({ ...drip.rolePids(), backends: [...backends], broker });
  const idle = cpuSnapshot();
  await new Promise((r) => setTimeout(r, BASELINE_MS));
  const idleUse = cpuUsed(idle, cpuSnapshot(), pids(), s.sim.pid);
  const { seconds, ...idleTotals } = idleUse;
  const baseline = Object.fromEntries(
    Object.entries(idleTotals).map(([k, v]) => [k, v / seconds]),
  ) as unknown as Baseline;
  // Lead: scheduling at a conservative 2,000/s, and 5 s to spare.
  const firstDue = Date.now() + Math.round((count / 2000) * 1300) + 5000;
  const dueAt = (i: number) => firstDue + Math.floor((i * 1000) / LIFECYCLE_RATE);
  const sizes = await relationSizes(databaseUrl, schema);
  const wal0 = await walMark(databaseUrl);
  const t0 = cpuSnapshot();
  await scheduleAll(s, tags, dueAt);
  const t1 = cpuSnapshot();
  const wal1 = await walMark(databaseUrl);
  await collect();
  if (Date.now() > firstDue) s.log(`  units: scheduling overran the due time by ${Date.now() - firstDue} ms`);
  await new Promise((r) => setTimeout(r, Math.max(0, firstDue - Date.now())));
  const t2 = cpuSnapshot();
  const wal2 = await walMark(databaseUrl);
  let t3 = t2;
  await awaitArrivals(s, count, dueAt(count - 1), () => (t3 = cpuSnapshot()));
  const wal3 = await walMark(databaseUrl);
  await collect();
  const due = new Map(tags.map((tag, i) => [tag, dueAt(i)]));
  const t = tally(await s.sim.received(), due, new Set());
  const grew = sizeGrowth(sizes, await relationSizes(databaseUrl, schema));
  const window = (a: CpuSnapshot, b: CpuSnapshot) =>
    perMessage(cpuUsed(a, b, pids(), s.sim.pid), baseline, count);
  return {
    messages: count,
    baseline,
    lost: t.lost,
    duplicates: t.duplicates,
    schedule: window(t0, t1),
    wait: window(t1, t2),
    due: window(t2, t3),
    walSchedule: (wal1.bytes - wal0.bytes) / count,
    walDue: (wal3.bytes - wal2.bytes) / count,
    bytes: perEach(grew, count),
  };
}

/**
 * `count` messages due a day ahead, `spacingMs` apart: 1 ms puts about 20 in a wake-up (as a batch of
 * messages spread over the day); over WAKE_UP_WINDOW_MS, each its own (as follow-triggered steps).
 */
async function pending(
  s: Scenario,
  drip: DripSystem,
  count: number,
  spacingMs: number,
): Promise<UnitCostsResult['pending']> {
  const { databaseUrl } = s.env;
  const prefix = drip.brokerPrefix();
  const sizes = await relationSizes(databaseUrl, drip.schemaName());
  const queues = await queuesUnder(prefix);
  const node = await brokerMemory();
  const disk = (await readFootprint(s.env)).rabbitmqDisk;
  const wal = await walMark(databaseUrl);
  const dueAt = Date.now() + DAY_MS;
  const tags = Array.from({ length: count }, (_, i) => `${s.tag}-p${spacingMs}-${i} ${PADDING}`);
  const dueOf = (i: number) => dueAt + ((i * spacingMs) % 3_600_000);
  await scheduleAll(s, tags, dueOf);
  const walAfter = await walMark(databaseUrl);
  // The answers come once the rows commit; the wake-ups are confirmed by the broker just after.
  const deadline = Date.now() + 60_000;
  let after = await queuesUnder(prefix);
  const wakeUps = groupWakeUps(tags.map((_, i) => ({ id: String(i), dueAt: dueOf(i) }))).length;
  while (after.messages < queues.messages + wakeUps && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    after = await queuesUnder(prefix);
  }
  if (after.messages < queues.messages + wakeUps)
    s.log(`  units: only ${after.messages - queues.messages} of ${wakeUps} wake-ups waiting in the broker`);
  const nodeAfter = await brokerMemory();
  const grew = sizeGrowth(sizes, await relationSizes(databaseUrl, drip.schemaName()));
  return {
    messages: count,
    wakeUps: after.messages - queues.messages,
    wal: (walAfter.bytes - wal.bytes) / count,
    bytes: perEach(grew, count),
    queueMemory: (after.memory - queues.memory) / count,
    quorumMemory: (nodeAfter.quorum - node.quorum) / count,
    rss: (nodeAfter.rss - node.rss) / count,
    disk: ((await readFootprint(s.env)).rabbitmqDisk - disk) / count,
  };
}

/** Runs the three phases on `drip` (started by the caller). */
export async function unitCosts(s: Scenario, drip: DripSystem): Promise<UnitCostsResult> {
  const before = loadAverage();
  const life = await lifecycle(s, drip, s.sizes.backlogBurst);
  s.log(`  units: lifecycle of ${life.messages}, lost ${life.lost}, dup ${life.duplicates}`);
  const wait = await pending(s, drip, s.sizes.schedule, 1);
  s.log(`  units: ${wait.messages} pending, ${Math.round(wait.queueMemory)} B of queue memory each`);
  const single = await pending(s, drip, Math.round(s.sizes.schedule / 5), WAKE_UP_WINDOW_MS + 5);
  s.log(`  units: ${single.wakeUps} pending alone, ${Math.round(single.queueMemory)} B of queue memory each`);
  const follows = await followers(s, drip, s.sizes.schedule);
  return {
    load: { before, after: loadAverage() },
    lifecycle: life,
    pending: wait,
    pendingAlone: single,
    followers: follows,
  };
}
