import { CPU_COMPONENTS, type CpuComponent, type CpuUse } from './cpu';
import type { Footprint } from './footprint';
import { renderSurgeTable, type SurgeResult } from './follower-surge';
import type { BacklogResult, BurstResult, SteadyResult, ThroughputResult } from './scenarios';
import type { SingleRequestsResult } from './single-requests';
import type { UnitCostsResult } from './unit-costs';
import type { HorizonBurstResult } from './horizon-burst';
import { renderUnitCostsTable } from './unit-report';
import { median } from './tally';

/** One system's results in one run of scenarios 1–4, 3b and 7; a scenario not chosen (BENCH_SCENARIOS) is absent. */
export interface SystemRun {
  readonly throughput?: ThroughputResult;
  readonly burst?: BurstResult;
  readonly steady?: SteadyResult;
  readonly single?: SingleRequestsResult;
  /** The steady scenario at its faster rate. */
  readonly fastSteady?: SteadyResult;
}

export interface SystemResults {
  readonly name: string;
  readonly settings: string;
  readonly peer: boolean;
  readonly runs: SystemRun[];
  readonly backlogs: BacklogResult[];
  /** Scenario 7 (wechat-drip in levels mode only), one per run. */
  surge?: SurgeResult[];
  /** Scenario 9 (wechat-drip in levels mode only), one per run. */
  units?: UnitCostsResult[];
  /** Scenario 10 (wechat-drip in levels mode only), one per run. */
  horizon?: HorizonBurstResult[];
}

const fmt = (n: number, digits = 0) =>
  Number.isNaN(n)
    ? '–'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** Growth in MB; under 1 MB (a store's own churn can make it negative) as `< 1 MB`. */
const fmt1 = (n: number) => fmt(n, 1);
const mb = (bytes: number) =>
  Number.isNaN(bytes) ? '–' : bytes < 2 ** 20 ? '< 1 MB' : `${fmt(bytes / 2 ** 20)} MB`;

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** The median over runs of one number. */
function med<T>(items: readonly T[], pick: (t: T) => number | undefined): number {
  return median(items.map((t) => pick(t) ?? NaN));
}

/** `ours ÷ best peer` for a higher-is-better (or lower-is-better) metric; '–' without peers. */
function ratio(
  all: readonly SystemResults[],
  s: SystemResults,
  pick: (r: SystemResults) => number,
  lower = false,
) {
  if (s.peer) return '';
  const peers = all
    .filter((p) => p.peer)
    .map(pick)
    .filter((v) => !Number.isNaN(v));
  if (peers.length === 0) return '–';
  const best = lower ? Math.min(...peers) : Math.max(...peers);
  return `${fmt(lower ? best / pick(s) : pick(s) / best, 2)}×`;
}

/** Markdown of every table, medians of the runs, with ratios of wechat-drip against the best peer. */
export function renderTables(all: readonly SystemResults[]): string {
  const runs = (s: SystemResults) => s.runs;
  const front = (s: SystemResults) => med(runs(s), (r) => r.throughput?.perSecond);
  const sends = (s: SystemResults) => med(runs(s), (r) => r.burst?.sendsPerSecond);
  const total = (s: SystemResults, pick: (r: SystemRun) => number | undefined) =>
    runs(s).reduce((n, r) => n + (pick(r) ?? 0), 0);
  const parts: string[] = [];

  parts.push(
    '### 1. Schedule throughput (messages/s until durably accepted; higher is better; WAL: Postgres bytes per message)',
    table(
      [
        'system',
        'front door',
        'publish path (library)',
        'front door vs best peer',
        'WAL front door',
        'WAL publish path',
      ],
      all.map((s) => [
        s.name,
        fmt(front(s)),
        fmt(med(runs(s), (r) => r.throughput?.publishPathPerSecond)),
        ratio(all, s, front),
        fmt(med(runs(s), (r) => r.throughput?.walBytesPerMessage)),
        fmt(med(runs(s), (r) => r.throughput?.publishPathWalBytesPerMessage)),
      ]),
    ),
  );
  parts.push(
    '### 2. Burst (all due at one instant; WAL: Postgres bytes per message, from the first schedule to the last send)',
    table(
      ['system', 'sends/s', 'due → last sent', 'lateness p50', 'p99', 'max', 'sends/s vs best peer', 'WAL'],
      all.map((s) => [
        s.name,
        fmt(sends(s)),
        `${fmt(
          med(runs(s), (r) => r.burst?.drainSeconds),
          1,
        )} s`,
        `${fmt(med(runs(s), (r) => r.burst?.lateness.p50))} ms`,
        `${fmt(med(runs(s), (r) => r.burst?.lateness.p99))} ms`,
        `${fmt(med(runs(s), (r) => r.burst?.lateness.max))} ms`,
        ratio(all, s, sends),
        fmt(med(runs(s), (r) => r.burst?.walBytesPerMessage)),
      ]),
    ),
  );
  const withCpu = all.filter((s) => runs(s).some((r) => r.burst?.cpu));
  if (withCpu.length > 0) {
    const cpu = (s: SystemResults, pick: (c: CpuUse) => number) =>
      med(runs(s), (r) => r.burst?.cpu && pick(r.burst.cpu));
    const used = (c: CpuUse) => CPU_COMPONENTS.reduce((n, k) => n + c[k], 0);
    const share = (s: SystemResults, k: CpuComponent) =>
      `${fmt(
        cpu(s, (c) => c[k]),
        1,
      )} s (${fmt(cpu(s, (c) => (100 * c[k]) / used(c)))} %)`;
    parts.push(
      '### 2b. Where the CPU went in the burst (core-seconds from the due time to the last send, read from /proc)',
      table(
        [
          'system',
          'cores busy',
          "system's processes",
          'Postgres',
          'RabbitMQ',
          'Redis',
          'simulator',
          'bench + other',
        ],
        withCpu.map((s) => [
          s.name,
          `${fmt(
            cpu(s, (c) => used(c) / c.seconds),
            2,
          )} of ${fmt(cpu(s, (c) => c.cores))}`,
          share(s, 'system'),
          share(s, 'postgres'),
          share(s, 'rabbitmq'),
          share(s, 'redis'),
          share(s, 'simulator'),
          `${fmt(
            cpu(s, (c) => c.bench + c.other),
            1,
          )} s`,
        ]),
      ),
    );
  }
  const steadyTable = (pick: (r: SystemRun) => SteadyResult | undefined) => {
    const p99 = (s: SystemResults) => med(runs(s), (r) => pick(r)?.lateness.p99);
    return table(
      ['system', 'lateness p50', 'p99', 'max', 'p99: best peer ÷ ours'],
      all.map((s) => [
        s.name,
        `${fmt(med(runs(s), (r) => pick(r)?.lateness.p50))} ms`,
        `${fmt(p99(s))} ms`,
        `${fmt(med(runs(s), (r) => pick(r)?.lateness.max))} ms`,
        ratio(all, s, p99, true),
      ]),
    );
  };
  parts.push(
    '### 3. Steady (falling due at a constant rate; lower is better)',
    steadyTable((r) => r.steady),
  );
  if (all.some((s) => runs(s).some((r) => r.fastSteady)))
    parts.push(
      '### 3b. Steady at the faster rate (2,000/s falling due)',
      steadyTable((r) => r.fastSteady),
    );
  parts.push(
    '### 4. Cancellation (10 % of the steady scenario at 500/s: half by key; half by id, up to 2,000 of them one request at a time with 20 in flight, the rest in bulk calls of up to 10,000)',
    table(
      [
        'system',
        'cancelled per run',
        'of them by key',
        'one by one: p50 / p99 ms',
        'bulk by id: cancellations/s',
        'cancellations/s overall',
        'refused (already sending)',
        'cancelled but sent (all runs)',
      ],
      all.map((s) => [
        s.name,
        fmt(med(runs(s), (r) => r.steady?.cancelled)),
        fmt(med(runs(s), (r) => r.steady?.cancelledByKey)),
        `${fmt1(med(runs(s), (r) => r.steady?.cancelOne?.p50))} / ${fmt1(med(runs(s), (r) => r.steady?.cancelOne?.p99))}`,
        fmt(med(runs(s), (r) => r.steady?.cancelBulkPerSecond)),
        fmt(med(runs(s), (r) => r.steady?.cancelPerSecond)),
        fmt(total(s, (r) => r.steady?.cancelRefused)),
        fmt(total(s, (r) => (r.steady?.cancelledSent ?? 0) + (r.fastSteady?.cancelledSent ?? 0))),
      ]),
    ),
  );
  const withBacklog = all.filter((s) => s.backlogs.length > 0);
  if (withBacklog.length > 0) {
    const grown = (s: SystemResults, pick: (g: Footprint) => number) =>
      mb(med(s.backlogs, (b) => pick(b.growth)));
    parts.push(
      `### 5. Backlog (${fmt(med(withBacklog[0].backlogs, (b) => b.count ?? NaN))} pending messages due over ${fmt(med(withBacklog[0].backlogs, (b) => b.days ?? 1))} days from a day ahead; growth of each store while it filled)`,
      table(
        [
          'system',
          'fill rate',
          'RabbitMQ memory',
          'RabbitMQ disk',
          'Redis memory',
          'Postgres disk',
          'burst sends/s empty → with backlog',
          'burst p99 empty → with backlog',
          'steady p99 empty → with backlog',
        ],
        withBacklog.map((s) => [
          s.name,
          `${fmt(med(s.backlogs, (b) => b.fillPerSecond))}/s`,
          grown(s, (g) => g.rabbitmqMemory),
          grown(s, (g) => g.rabbitmqDisk),
          grown(s, (g) => g.redisMemory),
          grown(s, (g) => g.postgresDisk),
          `${fmt(med(s.backlogs, (b) => b.before.sendsPerSecond))} → ${fmt(med(s.backlogs, (b) => b.after.sendsPerSecond))}`,
          `${fmt(med(s.backlogs, (b) => b.before.lateness.p99))} → ${fmt(med(s.backlogs, (b) => b.after.lateness.p99))} ms`,
          `${fmt(med(s.backlogs, (b) => b.steadyBefore?.lateness.p99))} → ${fmt(med(s.backlogs, (b) => b.steadyAfter?.lateness.p99))} ms`,
        ]),
      ),
    );
  }
  if (all.some((s) => runs(s).some((r) => r.single))) {
    const single = (s: SystemResults) => med(runs(s), (r) => r.single?.perSecond);
    const inFlight = med(all.flatMap(runs), (r) => r.single?.inFlight);
    parts.push(
      `### 7. Single requests (one message per call, ${fmt(inFlight)} calls in flight, due a day ahead)`,
      table(
        ['system', 'call', 'messages/s', 'latency p50', 'p99', 'max', 'messages/s vs best peer', 'WAL'],
        all.map((s) => [
          s.name,
          runs(s).find((r) => r.single)?.single?.call ?? '–',
          fmt(single(s)),
          `${fmt(med(runs(s), (r) => r.single?.p50))} ms`,
          `${fmt(med(runs(s), (r) => r.single?.p99))} ms`,
          `${fmt(med(runs(s), (r) => r.single?.max))} ms`,
          ratio(all, s, single),
          fmt(med(runs(s), (r) => r.single?.walBytesPerMessage)),
        ]),
      ),
    );
  }
  const lostOrDup = (s: SystemResults) => {
    const tallies = [
      ...s.runs.flatMap((r) => [r.burst, r.steady, r.fastSteady]),
      ...s.backlogs.flatMap((b) => [b.before, b.after, b.steadyBefore, b.steadyAfter]),
      ...(s.horizon ?? []).flatMap((h) => [h.published, h.entering]),
    ].filter((t) => t !== undefined);
    return {
      checked: tallies.reduce((n, t) => n + t.expected, 0),
      lost: tallies.reduce((n, t) => n + t.lost, 0),
      dup: tallies.reduce((n, t) => n + t.duplicates, 0),
    };
  };
  parts.push(
    '### 6. Correctness (every run, counted from the simulator’s record)',
    table(
      ['system', 'messages checked', 'lost', 'duplicates', 'cancelled but sent'],
      all.map((s) => {
        const c = lostOrDup(s);
        return [
          s.name,
          fmt(c.checked),
          fmt(c.lost),
          fmt(c.dup),
          fmt(total(s, (r) => (r.steady?.cancelledSent ?? 0) + (r.fastSteady?.cancelledSent ?? 0))),
        ];
      }),
    ),
  );
  for (const s of all.filter((r) => r.surge?.length)) parts.push(renderSurgeTable(s.name, s.surge ?? []));
  for (const s of all.filter((r) => r.units?.length)) parts.push(renderUnitCostsTable(s.name, s.units ?? []));
  for (const s of all.filter((r) => r.horizon?.length))
    parts.push(renderHorizonTable(s.name, s.horizon ?? []));
  parts.push('### Settings', all.map((s) => `- **${s.name}**: ${s.settings}`).join('\n'));
  return parts.join('\n\n');
}

/** Scenario 10: the burst published at schedule time against the same burst entering the horizon at once. */
function renderHorizonTable(name: string, runs: readonly HorizonBurstResult[]): string {
  const h = runs[0];
  const row = (what: string, pick: (r: HorizonBurstResult) => BurstResult, pump: string) => [
    what,
    fmt(med(runs, (r) => pick(r).expected)),
    `${fmt(med(runs, (r) => pick(r).sendsPerSecond))}/s`,
    `${fmt(med(runs, (r) => pick(r).lateness.p50))} ms`,
    `${fmt(med(runs, (r) => pick(r).lateness.p99))} ms`,
    `${fmt(med(runs, (r) => pick(r).lateness.max))} ms`,
    pump,
    fmt(runs.reduce((n, r) => n + pick(r).lost + pick(r).duplicates, 0)),
  ];
  const ratio = med(runs, (r) => r.entering.sendsPerSecond / r.published.sendsPerSecond);
  return [
    `### 10. A burst entering the publishing horizon at one instant (${name}, medians of ${runs.length})`,
    table(
      ['burst', 'messages', 'sends/s', 'lateness p50', 'p99', 'max', 'horizon pump', 'lost + duplicates'],
      [
        row('wake-ups published as scheduled (default horizon)', (r) => r.published, '–'),
        row(
          `all scheduled beyond a ${fmt(h.horizonSeconds)} s horizon, entering it together`,
          (r) => r.entering,
          `all rows in ${fmt(
            med(runs, (r) => r.pumpSeconds),
            1,
          )} s`,
        ),
      ],
    ),
    `Sends/s entering ÷ published: ${fmt(ratio, 2)}.`,
  ].join('\n\n');
}
