import type { Sizes } from './scenarios';
import type { BenchEnv } from './system';

/** Every system the benchmark knows, in the order they run. */
export const SYSTEM_KEYS = ['drip-levels', 'drip-plugin', 'bullmq', 'pg-boss'] as const;
/** The scenarios of a run, in the order they run (BENCH_SCENARIOS picks some; the backlog has BENCH_BACKLOG_RUNS). */
export const SCENARIO_KEYS = [
  'schedule',
  'burst',
  'steady',
  'steady-2000',
  'single',
  'surge',
  'units',
  'horizon',
] as const;
export type ScenarioKey = (typeof SCENARIO_KEYS)[number];

export interface BenchSettings {
  readonly sizes: Sizes;
  readonly scenarios: readonly ScenarioKey[];
  readonly runs: number;
  readonly backlogRuns: number;
  readonly workers: number;
  readonly systems: readonly string[];
  readonly databaseUrl: string;
  readonly rabbitmqUrl: string;
  /** A broker with the delayed-message plugin; '' runs no plugin-mode system. */
  readonly pluginUrl: string;
  /** That broker's node, whose memory and disk the backlog reads (`rabbitmqctl -n`). */
  readonly pluginNode: string;
  readonly redisUrl: string;
  readonly simPort: number;
  readonly appId: string;
  readonly secret: string;
  /** One line for the report. */
  describe(): string;
}

function positive(env: Record<string, string | undefined>, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** A comma list of `known` names from `env[name]` (all of them when unset); throws on an unknown one. */
function commaList(
  env: Record<string, string | undefined>,
  name: string,
  known: readonly string[],
): string[] {
  const names = (env[name] ?? known.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((s) => !known.includes(s));
  if (unknown.length > 0)
    throw new Error(`${name}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return names;
}

/**
 * Reads the BENCH_* variables. BENCH_SCALE (default 1: the sizes) multiplies every count, for a
 * quick smoke run; BENCH_RUNS (3) runs of scenarios 1–4; BENCH_BACKLOG_RUNS (1) of the backlog, which
 * is the slowest; BENCH_WORKERS (2) worker processes per system; BENCH_SYSTEMS a comma list of SYSTEM_KEYS;
 * BENCH_SCENARIOS a comma list of SCENARIO_KEYS (all by default); BENCH_SINGLE_CONCURRENCY (50) calls in
 * flight in the single-requests scenario; BENCH_BACKLOG (1,000,000 × BENCH_SCALE) pending messages in the
 * backlog scenario, due over BENCH_BACKLOG_DAYS (30) days from a day ahead.
 */
export function readSettings(env: Record<string, string | undefined>): BenchSettings {
  const scale = positive(env, 'BENCH_SCALE', 1);
  const count = (n: number) => Math.max(100, Math.round(n * scale));
  const systems = commaList(env, 'BENCH_SYSTEMS', SYSTEM_KEYS);
  const scenarios = commaList(env, 'BENCH_SCENARIOS', SCENARIO_KEYS);
  const sizes: Sizes = {
    schedule: count(100_000),
    burst: count(200_000),
    steadyRate: 500,
    fastSteadyRate: 2000,
    steadySeconds: Math.max(10, Math.round(120 * scale)),
    backlog: Math.round(positive(env, 'BENCH_BACKLOG', count(1_000_000))),
    backlogDays: positive(env, 'BENCH_BACKLOG_DAYS', 30),
    backlogBurst: count(20_000),
    single: count(20_000),
    singleConcurrency: Math.round(positive(env, 'BENCH_SINGLE_CONCURRENCY', 50)),
    chunk: Math.round(positive(env, 'BENCH_CHUNK', 1000)),
    concurrency: Math.round(positive(env, 'BENCH_CONCURRENCY', 4)),
  };
  // 0 runs of either kind skips it (BENCH_RUNS=0 measures only the backlog).
  const runs = env.BENCH_RUNS === '0' ? 0 : Math.round(positive(env, 'BENCH_RUNS', 3));
  const backlogRuns = env.BENCH_BACKLOG_RUNS === '0' ? 0 : Math.round(positive(env, 'BENCH_BACKLOG_RUNS', 1));
  const workers = Math.round(positive(env, 'BENCH_WORKERS', 2));
  return {
    sizes,
    scenarios: SCENARIO_KEYS.filter((k) => scenarios.includes(k)),
    runs,
    backlogRuns,
    workers,
    systems,
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    rabbitmqUrl: env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    pluginUrl: env.RABBITMQ_PLUGIN_URL ?? '',
    pluginNode: env.RABBITMQ_PLUGIN_NODE ?? 'plugin@localhost',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    simPort: Math.round(positive(env, 'BENCH_SIM_PORT', 4170)),
    appId: 'wxbench0000000001',
    secret: 'bench-secret',
    describe: () =>
      `Sizes: schedule ${sizes.schedule.toLocaleString('en-US')}, burst ${sizes.burst.toLocaleString('en-US')}, ` +
      `steady ${sizes.steadyRate}/s and ${sizes.fastSteadyRate}/s for ${sizes.steadySeconds} s, backlog ${sizes.backlog.toLocaleString('en-US')} over ${sizes.backlogDays} days ` +
      `(bursts of ${sizes.backlogBurst.toLocaleString('en-US')} and the steady scenario before and after), single requests ` +
      `${sizes.single.toLocaleString('en-US')} (${sizes.singleConcurrency} in flight); ${runs} runs of ` +
      `${scenarios.length === SCENARIO_KEYS.length ? 'scenarios 1–4, 3b, 7, 8, 9 and 10' : scenarios.join(', ')} ` +
      `(medians shown), ${backlogRuns} of the backlog; ${workers} worker processes per system; producers send ` +
      `chunks of ${sizes.chunk} with ${sizes.concurrency} in flight.`,
  };
}

/** The environment every system of a run gets, from the settings and the simulator's URL. */
export function benchEnvOf(settings: BenchSettings, simUrl: string, benchDir: string): BenchEnv {
  const { databaseUrl, rabbitmqUrl, redisUrl, appId, secret, workers } = settings;
  return { databaseUrl, rabbitmqUrl, redisUrl, simUrl, appId, secret, workers, benchDir };
}
