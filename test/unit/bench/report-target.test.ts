import path from 'node:path';
import { reportTarget } from '../../../bench/report-target';

const ROOT = '/repo';
const published = { markdown: '/repo/docs/BENCHMARKS.md', runs: '/repo/docs/bench-runs.json' };
const aside = {
  markdown: '/repo/test-artifacts/bench/BENCHMARKS.md',
  runs: '/repo/test-artifacts/bench/bench-runs.json',
};

describe('reportTarget: where make bench writes its tables', () => {
  it('a complete run (the defaults, or every scenario and system listed) replaces the published tables in docs/', () => {
    expect(reportTarget({}, ROOT)).toMatchObject({ ...published, published: true, partialBecause: [] });
    const everything = {
      BENCH_SCENARIOS: 'horizon,units,surge,single,steady-2000,steady,burst,schedule',
      BENCH_SYSTEMS: 'drip-levels, drip-plugin, bullmq, pg-boss',
      BENCH_SCALE: '1',
      BENCH_RUNS: '3',
    };
    expect(reportTarget(everything, ROOT)).toMatchObject({ ...published, published: true });
  });

  it.each([
    ['BENCH_SCENARIOS', 'burst'],
    ['BENCH_SYSTEMS', 'drip-levels'],
    ['BENCH_SCALE', '0.05'],
    ['BENCH_RUNS', '0'],
    ['BENCH_BACKLOG_RUNS', '0'],
    ['BENCH_BACKLOG', '10000000'],
    ['BENCH_BACKLOG_DAYS', '1'],
  ])('a partial run (%s=%s) writes to test-artifacts/bench/ and names why', (name, value) => {
    const target = reportTarget({ [name]: value }, ROOT);
    expect(target).toMatchObject({ ...aside, published: false, partialBecause: [`${name}=${value}`] });
  });

  it('names every reason a run is partial', () => {
    const target = reportTarget({ BENCH_SCENARIOS: 'burst', BENCH_SCALE: '0.1' }, ROOT);
    expect(target.partialBecause).toEqual(['BENCH_SCENARIOS=burst', 'BENCH_SCALE=0.1']);
    expect(path.dirname(target.markdown)).toBe('/repo/test-artifacts/bench');
  });
});
