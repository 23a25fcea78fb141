import path from 'node:path';
import { SCENARIO_KEYS, SYSTEM_KEYS } from './settings';

/** Where a run's tables and raw numbers go, and why there. */
export interface ReportTarget {
  /** The Markdown file whose `bench:begin` / `bench:end` block receives the tables. */
  readonly markdown: string;
  /** The raw results, for `--report-only`. */
  readonly runs: string;
  /** True when the run is complete and replaces the published one in docs/. */
  readonly published: boolean;
  /** What makes the run partial (empty when it is complete). */
  readonly partialBecause: readonly string[];
}

const sameList = (raw: string | undefined, all: readonly string[]): boolean =>
  raw === undefined ||
  raw.trim() === '' ||
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort()
    .join(',') === [...all].sort().join(',');

/**
 * Chooses where `make bench` writes. Only a complete run — every scenario, every system, the full sizes
 * (scenario 5's backlog included), at least one run and one backlog run — replaces the published tables in docs/BENCHMARKS.md and
 * docs/bench-runs.json; a partial one (a quick look) writes its own copies under test-artifacts/bench/,
 * so that a smoke run can never leave a table of dashes in the published report.
 */
export function reportTarget(env: Record<string, string | undefined>, root: string): ReportTarget {
  const partialBecause = [
    ...(sameList(env.BENCH_SCENARIOS, SCENARIO_KEYS) ? [] : [`BENCH_SCENARIOS=${env.BENCH_SCENARIOS}`]),
    ...(sameList(env.BENCH_SYSTEMS, SYSTEM_KEYS) ? [] : [`BENCH_SYSTEMS=${env.BENCH_SYSTEMS}`]),
    ...(env.BENCH_SCALE === undefined || env.BENCH_SCALE === '' || Number(env.BENCH_SCALE) === 1
      ? []
      : [`BENCH_SCALE=${env.BENCH_SCALE}`]),
    ...(env.BENCH_RUNS === '0' ? ['BENCH_RUNS=0'] : []),
    ...(env.BENCH_BACKLOG_RUNS === '0' ? ['BENCH_BACKLOG_RUNS=0'] : []),
    // Another backlog than scenario 5's (its size or spread) is a measurement of its own.
    ...(['BENCH_BACKLOG', 'BENCH_BACKLOG_DAYS'] as const)
      .filter((name) => (env[name] ?? '') !== '')
      .map((name) => `${name}=${env[name]}`),
  ];
  const published = partialBecause.length === 0;
  const dir = published ? path.join(root, 'docs') : path.join(root, 'test-artifacts/bench');
  return {
    markdown: path.join(dir, 'BENCHMARKS.md'),
    runs: path.join(dir, 'bench-runs.json'),
    published,
    partialBecause,
  };
}
