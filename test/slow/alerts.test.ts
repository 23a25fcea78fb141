/**
 * docker/alerts.yml, the alerting rules of the compose Prometheus: valid (promtool check rules), tested
 * (promtool test rules docker/alerts.test.yml, with a firing and a quiet case per alert), documented (each
 * runbook_url is a section of docs/operations.md), and reading only metrics and labels that a running
 * service serves. A renamed metric, a deleted runbook or an alert without a test fails here.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Service } from '../../src/main/start-service';
import { createHarness, type Harness } from '../helpers/harness';
import { ensurePromtool, hasPyYaml, requiring, yamlToJson } from '../helpers/tools';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleTests {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

const promtoolMissing = ensurePromtool() ?? (hasPyYaml() ? null : 'python3-yaml is missing');
/** A check that needs promtool (and PyYAML, which reads the rule files here). */
const itWithPromtool = requiring(promtoolMissing, 'alerts.test.ts');

/** Labels Prometheus gives every scraped series (`role` comes from docker/prometheus.yml), and `le`. */
const TARGET_LABELS = new Set(['job', 'instance', 'role', 'le']);
/** Series Prometheus makes itself rather than scraping them from the service. */
const PROMETHEUS_OWN = new Set(['up']);

let parsedRules: AlertRule[] | null = null;
/** Every alerting rule of docker/alerts.yml, parsed once. */
const rules = (): AlertRule[] =>
  (parsedRules ??= (
    yamlToJson(read('docker/alerts.yml')) as { groups: { rules: AlertRule[] }[] }
  ).groups.flatMap((g) => g.rules));

/** The metric names in a PromQL expression: the service's, prom-client's defaults, and `up`. */
const metricsIn = (expr: string): string[] => [
  ...new Set(expr.match(/\b(?:wechat_drip|process|nodejs)_[a-z0-9_]+\b|\bup\b(?=\s*[{=)])/g) ?? []),
];

/** GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('docker/alerts.yml', () => {
  itWithPromtool('is valid (promtool check rules) and loaded by docker/prometheus.yml', async () => {
    await expect(run('promtool', ['check', 'rules', join(ROOT, 'docker/alerts.yml')])).resolves.toBeDefined();
    const config = yamlToJson(read('docker/prometheus.yml')) as { rule_files: string[] };
    expect(config.rule_files).toEqual(['alerts.yml']);
  });

  itWithPromtool('passes its unit tests (promtool test rules docker/alerts.test.yml)', async () => {
    const { stdout } = await run('promtool', ['test', 'rules', join(ROOT, 'docker/alerts.test.yml')]);
    expect(stdout).toContain('SUCCESS');
  });

  itWithPromtool('has, for every alert, a test case where it fires and one where it stays quiet', () => {
    const tests = yamlToJson(read('docker/alerts.test.yml')) as RuleTests;
    expect(tests.rule_files).toEqual(['alerts.yml']);
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const names = rules().map((r) => r.alert);
    expect(names.length).toBeGreaterThanOrEqual(15);
    for (const alert of names) {
      const own = cases.filter((c) => c.alertname === alert);
      expect({
        alert,
        fires: own.some((c) => (c.exp_alerts ?? []).length > 0),
        quiet: own.some((c) => (c.exp_alerts ?? []).length === 0),
      }).toEqual({ alert, fires: true, quiet: true });
    }
    // A case naming an alert that does not exist would pass vacuously.
    expect(cases.filter((c) => !names.includes(c.alertname))).toEqual([]);
  });

  itWithPromtool(
    'gives every alert a severity, a summary, a description and a runbook that docs/operations.md has',
    () => {
      const headings = read('docs/operations.md')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => anchorOf(l.replace(/^#+ /, '')));
      for (const rule of rules()) {
        const runbook = /^docs\/operations\.md#(.+)$/.exec(rule.annotations?.runbook_url ?? '');
        expect({
          alert: rule.alert,
          severity: rule.labels?.severity,
          summary: Boolean(rule.annotations?.summary),
          description: Boolean(rule.annotations?.description),
          runbook: runbook !== null && headings.includes(runbook[1]),
        }).toEqual({
          alert: rule.alert,
          severity: expect.stringMatching(/^(critical|warning)$/),
          summary: true,
          description: true,
          runbook: true,
        });
      }
    },
  );
});

describe('the metrics docker/alerts.yml reads', () => {
  let h: Harness;
  let service: Service;
  let served: Map<string, string>;

  beforeAll(async () => {
    h = await createHarness();
    service = await h.start();
    const text = await (await fetch(`${service.opsUrl}/metrics`)).text();
    served = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
  }, 60_000);
  afterAll(() => h?.close());

  /** The metric a series belongs to: a histogram's _bucket, _sum and _count are its own. */
  const metricOf = (series: string) => {
    const base = series.replace(/_(bucket|sum|count)$/, '');
    return served.get(base) === 'histogram' ? base : series;
  };

  itWithPromtool('are each served on /metrics by a running service (api and worker in one process)', () => {
    expect(served.size).toBeGreaterThan(20);
    for (const rule of rules()) {
      for (const series of metricsIn(rule.expr)) {
        if (PROMETHEUS_OWN.has(series)) continue;
        expect({ alert: rule.alert, series, served: served.has(metricOf(series)) }).toEqual({
          alert: rule.alert,
          series,
          served: true,
        });
      }
    }
  });

  itWithPromtool('are matched and grouped by labels those metrics carry', () => {
    const labelsOf = (metric: string): string[] => {
      const found = service.metrics.registry.getSingleMetric(metric) as unknown as
        { labelNames?: string[] } | undefined;
      return [...(found?.labelNames ?? [])];
    };
    for (const rule of rules()) {
      const carried = new Set([
        ...TARGET_LABELS,
        ...metricsIn(rule.expr).flatMap((s) => labelsOf(metricOf(s))),
      ]);
      const matched = [...rule.expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) =>
        [...m[1].matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]),
      );
      const grouped = [...rule.expr.matchAll(/\b(?:by|on|without|ignoring)\s*\(([^)]*)\)/g)].flatMap((m) =>
        m[1]
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean),
      );
      for (const label of [...matched, ...grouped])
        expect({ alert: rule.alert, label, carried: carried.has(label) }).toEqual({
          alert: rule.alert,
          label,
          carried: true,
        });
    }
  });
});
