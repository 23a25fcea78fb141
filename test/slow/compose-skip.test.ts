/**
 * compose.test.ts cannot pass by not running: without docker-compose its checks are reported skipped, never
 * passed. Proven by running that file in a child jest whose PATH holds only `node`, so that docker-compose,
 * PyYAML, promtool and apt-get are all out of reach.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onPath } from '../helpers/path';

const ROOT = resolve(__dirname, '../..');

interface JestJson {
  numFailedTests: number;
  numPassedTests: number;
  numPendingTests: number;
  testResults: { assertionResults: { title: string; status: string }[] }[];
}

/** Runs compose.test.ts in a child jest with `env`; its JSON report. */
function runComposeTests(env: NodeJS.ProcessEnv): JestJson {
  const dir = mkdtempSync(join(tmpdir(), 'compose-skip-'));
  try {
    const outputFile = join(dir, 'results.json');
    spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/jest/bin/jest.js'),
        '--selectProjects',
        'slow',
        '--runInBand',
        '--json',
        `--outputFile=${outputFile}`,
        'test/slow/compose.test.ts',
      ],
      { cwd: ROOT, env, encoding: 'utf8', timeout: 600_000 },
    );
    return JSON.parse(readFileSync(outputFile, 'utf8')) as JestJson;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The statuses compose.test.ts reported, by test title. */
const byTitle = (report: JestJson) =>
  Object.fromEntries(report.testResults.flatMap((r) => r.assertionResults.map((a) => [a.title, a.status])));

describe('compose.test.ts without docker-compose', () => {
  it('reports every check that needs docker-compose or promtool as skipped, and passes none of them', () => {
    const bin = mkdtempSync(join(tmpdir(), 'only-node-'));
    try {
      symlinkSync(process.execPath, join(bin, 'node'));
      // Not in CI mode: there a missing tool is a failure on purpose.
      const { CI: _ci, ...env } = process.env;
      const report = runComposeTests({ ...env, PATH: bin });
      const statuses = byTitle(report);
      expect(report.numFailedTests).toBe(0);
      expect(report.numPendingTests).toBeGreaterThanOrEqual(10);
      for (const title of [
        'defines the whole stack, the application services sharing one image built from docker/Dockerfile',
        'gives each process an environment its own configuration loader accepts',
        'scrapes the api, every worker replica found by DNS, and RabbitMQ, on the ports compose gives them',
        'is a valid Prometheus configuration (promtool check config)',
        'has queries that are valid PromQL (promtool check rules)',
      ]) {
        expect({ title, status: statuses[title] }).toEqual({ title, status: 'pending' });
      }
      // What needs no tool still ran and passed.
      expect(statuses['names the metrics, with the labels, that src/metrics.ts registers']).toBe('passed');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 600_000);
});

// Decided before the test is defined: on a machine without the tools this reports itself skipped.
const toolsPresent = onPath('docker-compose') && onPath('promtool');

describe('compose.test.ts with docker-compose and promtool', () => {
  (toolsPresent ? it : it.skip)(
    'runs every check, skipping none',
    () => {
      const report = runComposeTests(process.env);
      expect({ failed: report.numFailedTests, skipped: report.numPendingTests }).toEqual({
        failed: 0,
        skipped: 0,
      });
      expect(report.numPassedTests).toBeGreaterThanOrEqual(20);
    },
    600_000,
  );
});
