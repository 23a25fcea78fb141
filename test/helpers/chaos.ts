import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../../src/main/start-service';
import type { ReceivedMessage } from '../../src/simulator/store';
import { countOwedWakeUps } from '../../src/store/wake-up-outbox';
import { APP_ID, type Harness, waitFor } from './harness';
import { aSimTemplate, aTextMessage } from './builders';

/**
 * Messages per fault scenario: bounded inside `make test`, 10,000 with `make chaos`. Every wait scales
 * with it (`scaledMs`), so one set of scenarios runs at both sizes.
 */
export const CHAOS_MESSAGES = Number(process.env.CHAOS_MESSAGES ?? 500);

/** `baseMs` plus `perMessageMs` for each message of the scenario. */
export const scaledMs = (baseMs: number, perMessageMs: number): number =>
  Math.round(baseMs + perMessageMs * CHAOS_MESSAGES);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A scheduled message's tag, unique per message: the text of a custom one, `data.character_string1` of a
 * template one (32 characters, that field's limit).
 */
export const tagOf = (body: unknown): string => {
  const b = body as { text?: { content: string }; data?: { character_string1: { value: string } } };
  return b.text?.content ?? b.data!.character_string1.value;
};

/** The template tagged template messages use: pass it as the harness's `templates`. */
export const CHAOS_TEMPLATE = aSimTemplate('TPL-CHAOS', '标记：{{character_string1.DATA}}');

/** The message that carries `tag` on `channel`. */
const taggedMessage = (tag: string, channel: 'custom' | 'template') =>
  channel === 'template'
    ? { template_id: CHAOS_TEMPLATE.template_id, data: { character_string1: { value: tag } } }
    : aTextMessage(tag);

/**
 * Schedules `count` tagged messages (text, or template ones with `channel: 'template'`) through
 * `POST /v1/messages/batch`, with delays spread evenly over [fromMs, toMs), round-robin over `appIds` and
 * 31 followers; returns the tags, all accepted.
 */
export async function scheduleTagged(
  h: Harness,
  service: Pick<Service, 'url'>,
  count: number,
  opts: { fromMs: number; toMs: number; appIds?: readonly string[]; channel?: 'custom' | 'template' },
): Promise<string[]> {
  const appIds = opts.appIds ?? [APP_ID];
  const channel = opts.channel ?? 'custom';
  const tags = Array.from({ length: count }, () => randomUUID().replaceAll('-', ''));
  const lines = tags.map((tag, i) =>
    JSON.stringify({
      appId: appIds[i % appIds.length],
      openid: `o-${i % 31}`,
      channel,
      message: taggedMessage(tag, channel),
      delayMs: opts.fromMs + Math.floor(((opts.toMs - opts.fromMs) * i) / count),
    }),
  );
  const res = await h.api(service, '/v1/messages/batch', {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: lines.join('\n'),
  });
  const summary = JSON.parse((await res.text()).trim().split('\n').at(-1)!) as {
    summary: { accepted: number };
  };
  expect(summary.summary.accepted).toBe(count);
  return tags;
}

/**
 * Counts, from the simulator's record, how many times each tag (`keyOf` a received message; by default
 * its text) was received. Reads only what arrived since the last call, so polling it is cheap even at
 * 10,000 messages.
 */
export function createReceivedCounter(
  h: Harness,
  keyOf: (m: ReceivedMessage) => string = (m) => tagOf(m.body),
): { counts(): Map<string, number> } {
  const counts = new Map<string, number>();
  let since = 0;
  return {
    counts() {
      for (const m of h.simulator.messages({ since })) {
        since = m.seq;
        const key = keyOf(m);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return counts;
    },
  };
}

/** One scenario's verdict, counted from the simulator's record. */
export interface Tally {
  readonly scenario: string;
  /** Scheduled and not cancelled: each must be received exactly once. */
  readonly messages: number;
  readonly deliveredOnce: number;
  /** Never received, and not excused by the delivery policy (see `excused`). */
  readonly lost: number;
  /** Received more than once, or received without having been scheduled, against the policy. */
  readonly duplicates: number;
  /**
   * What the delivery policy allows and this scenario saw: rows recorded `unknown` and never received (a
   * worker killed after claiming, before recording), or an at-least-once account's resends. Usually 0.
   */
  readonly excused: number;
  /** What `excused` counts, e.g. `unknown`; empty when nothing is excused. */
  readonly policy: string;
  readonly seconds: number;
  /** What else the scenario saw worth a line in the report (the relay re-issuing wake-ups, say). */
  readonly note?: string;
  /** Cluster scenarios: the time to recover from the fault, in s (see timings.ts). */
  readonly recoveryS?: number;
  /** Cluster scenarios: received − scheduled, in ms. */
  readonly lateness?: { readonly p50: number; readonly p99: number; readonly max: number };
}

/**
 * Counts `tags` against `counts`: lost = never received, duplicates = received more than once, plus any
 * received tag that was not scheduled. `excuse.lost` are tags the policy lets go unreceived (recorded
 * `unknown`), `excuse.repeats` tags it lets arrive twice (an at-least-once resend): counted as `excused`.
 */
export function tally(
  scenario: string,
  tags: readonly string[],
  counts: ReadonlyMap<string, number>,
  startedAt: number,
  excuse: { lost?: ReadonlySet<string>; repeats?: ReadonlySet<string>; policy?: string } = {},
): Tally {
  const expected = new Set(tags);
  let deliveredOnce = 0;
  let lost = 0;
  let duplicates = 0;
  let excused = 0;
  for (const tag of tags) {
    const n = counts.get(tag) ?? 0;
    if (n === 1) deliveredOnce++;
    else if (n === 0 && excuse.lost?.has(tag)) excused++;
    else if (n === 0) lost++;
    else if (n === 2 && excuse.repeats?.has(tag)) excused++;
    else duplicates++;
  }
  for (const tag of counts.keys()) if (!expected.has(tag)) duplicates++;
  return {
    scenario,
    messages: tags.length,
    deliveredOnce,
    lost,
    duplicates,
    excused,
    policy: excuse.policy ?? '',
    seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  };
}

/** `rabbitmqctl -n <private node> …` on the node (or a node of the cluster) the scenario's service uses. */
export type RabbitCtl = (args: readonly string[]) => Promise<string>;

/**
 * Rows by status (and reason), the messages in each broker queue of the harness's prefix (by
 * `rabbitmqctl` on the scenario's private node, which also counts wake-ups a level holds for
 * dead-lettering, unlike a passive declare), and the simulator's counters: where undelivered messages
 * stand.
 */
export async function diagnose(h: Harness, ctl: RabbitCtl): Promise<string> {
  const { rows } = await h.db.pool.query<{ status: string; reason: string | null; n: number }>(
    `SELECT status, status_reason AS reason, count(*)::int AS n FROM scheduled_messages GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const queues = await ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages']).then(
    (stdout) =>
      stdout
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .filter(([name, n]) => name?.startsWith(`${h.prefix}.`) && Number(n) > 0)
        .map(([name, n]) => `${name.slice(h.prefix.length + 1)}=${n}`)
        .join(' ') || 'empty',
    (err: Error) => `unknown (${err.message})`,
  );
  const stats = h.simulator.stats();
  return (
    `rows: ${rows.map((r) => `${r.status}${r.reason ? `(${r.reason})` : ''}=${r.n}`).join(' ')}; ` +
    `queues: ${queues}; simulator: received=${stats.received} ` +
    `injected=${stats.errorsInjected} rejected=${JSON.stringify(stats.rejectedByErrcode)}`
  );
}

/** Waits until every row has its wake-up confirmed (no outbox entry left): the messages now wait in RabbitMQ. */
export async function waitUntilQueued(harness: Harness): Promise<void> {
  expect(
    await waitFor(async () => (await countOwedWakeUps(harness.db.pool)) === 0, scaledMs(10_000, 2)),
  ).toBe(true);
}

/** Wake-ups the relay had to publish again (a lost or stalled wake-up, or an outbox entry left behind). */
export async function relayRepublished(service: Service): Promise<number> {
  const { values } = await service.metrics.published.get();
  return values.filter((v) => v.labels.reason === 'relay').reduce((n, v) => n + v.value, 0);
}

/** Waits until `done`, or `timeoutMs`; then a moment more, in which a duplicate would arrive. */
export async function settle(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  await waitFor(done, timeoutMs, 100);
  await sleep(1500);
}

/**
 * The scenario's assertion: lost = 0 and duplicates = 0, with a diagnosis of where the rows and the
 * wake-ups stand when not.
 */
export async function expectNoneLostNoneTwice(h: Harness, t: Tally, ctl: RabbitCtl): Promise<void> {
  if (t.lost > 0 || t.duplicates > 0) {
    throw new Error(
      `${t.scenario}: ${t.lost} lost, ${t.duplicates} duplicates of ${t.messages}; ${await diagnose(h, ctl)}`,
    );
  }
  expect(t.deliveredOnce + t.excused).toBe(t.messages);
}

/** Writes the per-scenario table to `test-artifacts/chaos-report.txt` (`make chaos` prints it). */
export function writeChaosReport(
  tallies: readonly Tally[],
  file = 'test-artifacts/chaos-report.txt',
  title = 'fault suite',
): string {
  const header = ['scenario', 'messages', 'delivered once', 'lost', 'duplicates', 'allowed by policy', 's'];
  // Only the cluster scenarios measure recovery and lateness: their table has two more columns.
  const timed = tallies.some((t) => t.lateness);
  if (timed) header.push('recovery s', 'late p50/p99/max ms');
  const rows = tallies.map((t) => [
    t.scenario,
    String(t.messages),
    String(t.deliveredOnce),
    String(t.lost),
    String(t.duplicates),
    t.policy ? `${t.excused} ${t.policy}` : '-',
    t.seconds.toFixed(1),
    ...(timed
      ? [t.recoveryS?.toFixed(1) ?? '-', t.lateness ? Object.values(t.lateness).join('/') : '-']
      : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const notes = tallies.filter((t) => t.note).map((t) => `  ${t.scenario}: ${t.note}`);
  const text = [
    `${title}, ${CHAOS_MESSAGES} messages per scenario`,
    line(header),
    ...rows.map(line),
    ...(notes.length > 0 ? ['', 'notes:', ...notes] : []),
    '',
  ].join('\n');
  const target = path.resolve(__dirname, '../..', file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text);
  return text;
}
