import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Service } from '../../src/main/start-service';
import { createReceivedCounter, scheduleTagged, settle } from '../helpers/chaos';
import { createHarness, type Harness, waitFor } from '../helpers/harness';
import { clusterUnavailable, type RabbitNode, startRabbitNode } from '../helpers/rabbit-cluster';
import { ensurePromtool, hasPyYaml, yamlToJson } from '../helpers/tools';

/**
 * A RabbitMQ outage as an operator sees it (issue 22): the service (api and worker in one process) runs
 * on a private RabbitMQ node; the node is stopped, messages are scheduled, and the outbox backlog gauge
 * scraped from the ops listener rises with each batch. The scraped samples, held as a longer outage
 * would hold them, are fed to `promtool test rules` with docker/alerts.yml: OutboxBacklogGrowing fires,
 * and stops once the samples after the restart (0) come in. Restarted, the node gets every wake-up and
 * the simulator receives every message once. The machine's own node (5672) is never touched.
 */
const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');
const BATCH = 10;
const unavailable =
  clusterUnavailable() ?? ensurePromtool() ?? (hasPyYaml() ? null : 'python3-yaml is missing');
if (unavailable) console.info(`outbox backlog scenario skipped: ${unavailable}`);
const itWithNode = unavailable ? it.skip : it;

let rabbit: RabbitNode | undefined;
let h: Harness | undefined;
afterAll(async () => {
  try {
    await h?.close();
  } finally {
    await rabbit?.close();
  }
}, 60_000);

/** One scrape of the process's ops listener: the value of each unlabelled series named. */
async function scrape(service: Service): Promise<(name: string) => number | undefined> {
  const text = await (await fetch(`${service.opsUrl}/metrics`)).text();
  return (name) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
}
const BACKLOG = 'wechat_drip_outbox_backlog_messages';

/** Scrapes until the backlog gauge reaches `atLeast`; returns the last value seen. */
async function backlogReaching(service: Service, atLeast: number): Promise<number | undefined> {
  let seen: number | undefined;
  await waitFor(async () => {
    seen = (await scrape(service))(BACKLOG);
    return seen !== undefined && seen >= atLeast;
  }, 15_000);
  return seen;
}

interface AlertRule {
  alert: string;
  annotations: Record<string, string>;
}

/**
 * Runs `promtool test rules` on docker/alerts.yml with one series of `values` at one a minute, as the
 * compose Prometheus would have scraped them from the api, and the expected alerts at each time.
 */
async function promtoolRuleTest(
  values: readonly number[],
  cases: { evalMinute: number; firingWithValue: number | null }[],
): Promise<string> {
  const rules = (
    yamlToJson(readFileSync(join(ROOT, 'docker/alerts.yml'), 'utf8')) as { groups: { rules: AlertRule[] }[] }
  ).groups.flatMap((g) => g.rules);
  const { annotations } = rules.find((r) => r.alert === 'OutboxBacklogGrowing')!;
  const dir = mkdtempSync(join(tmpdir(), 'outbox-alert-'));
  try {
    const file = join(dir, 'outbox.test.yml');
    // JSON is YAML.
    const tests = {
      rule_files: [join(ROOT, 'docker/alerts.yml')],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            { series: `${BACKLOG}{job="wechat-drip-api", instance="api"}`, values: values.join(' ') },
          ],
          alert_rule_test: cases.map((c) => ({
            eval_time: `${c.evalMinute}m`,
            alertname: 'OutboxBacklogGrowing',
            exp_alerts:
              c.firingWithValue === null
                ? []
                : [
                    {
                      exp_labels: { severity: 'warning' },
                      exp_annotations: {
                        ...annotations,
                        description: annotations.description.replace(
                          /\{\{ \$value \}\}/g,
                          String(c.firingWithValue),
                        ),
                      },
                    },
                  ],
          })),
        },
      ],
    };
    writeFileSync(file, JSON.stringify(tests));
    return (await run('promtool', ['test', 'rules', file])).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a RabbitMQ outage', () => {
  itWithNode(
    'raises the outbox backlog gauge with each batch scheduled, fires OutboxBacklogGrowing on those samples, and drains to 0 with every message sent once after the restart',
    async () => {
      rabbit = await startRabbitNode();
      h = await createHarness({
        RABBITMQ_URL: rabbit.node.url,
        RELAY_INTERVAL_MS: '500',
        RELAY_PENDING_AFTER_MS: '1000',
      });
      const service = await h.start();
      const samples = [(await scrape(service))(BACKLOG)];
      expect(samples).toEqual([0]);

      await rabbit.stop();
      expect(
        await waitFor(async () => (await scrape(service))('wechat_drip_broker_connected') === 0, 10_000),
      ).toBe(true);
      const tags = await scheduleTagged(h, service, BATCH, { fromMs: 500, toMs: 1000 });
      samples.push(await backlogReaching(service, BATCH));
      tags.push(...(await scheduleTagged(h, service, BATCH, { fromMs: 500, toMs: 1000 })));
      samples.push(await backlogReaching(service, 2 * BATCH));
      // Accepted, not published, and counted once the relay's grace is over: growing with each batch.
      expect(samples).toEqual([0, BATCH, 2 * BATCH]);
      expect((await scrape(service))('wechat_drip_outbox_oldest_age_seconds')).toBeGreaterThan(1);

      await rabbit.start();
      const received = createReceivedCounter(h);
      const drained = await waitFor(async () => (await scrape(service))(BACKLOG) === 0, 30_000);
      await settle(() => tags.every((t) => received.counts().has(t)), 30_000);
      const after = (await scrape(service))(BACKLOG);
      expect({ drained, after }).toEqual({ drained: true, after: 0 });
      expect(tags.map((t) => received.counts().get(t) ?? 0)).toEqual(tags.map(() => 1));

      // The samples one a minute, the last outage reading held for 30 minutes as a longer outage would
      // hold it, then the readings after the restart: the alert fires during the outage and not after.
      const held = samples.at(-1)!;
      const series = [
        ...(samples as number[]),
        ...Array<number>(30).fill(held),
        ...Array<number>(20).fill(after!),
      ];
      const out = await promtoolRuleTest(series, [
        { evalMinute: 10, firingWithValue: null },
        { evalMinute: 30, firingWithValue: held },
        { evalMinute: 52, firingWithValue: null },
      ]);
      expect(out).toContain('SUCCESS');
    },
    150_000,
  );
});
