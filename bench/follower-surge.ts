/**
 * Scenario 7, wechat-drip only (the peers have no webhook): a follower surge — a viral QR code. The
 * WeChat simulator pushes signed follow events to the webhook with `inFlight` pushes outstanding, first as
 * fast as they are answered, then paced at `pacedPerSecond`. The account has a follow sequence whose step
 * 1 is due 1 s after the follow and a 4 s follow window, enforced by the service and the simulator alike.
 * Everything is counted from outside the service: answers and their times from the simulator's deliveries,
 * step-1 arrivals from the simulator's record, enrollments and window-closed skips from the database.
 */
import pg from 'pg';
import { freePort } from '../test/helpers/free-port';
import { createDripSystem, type DripSystem } from './drip';
import { startSimulator, type SimulatorProcess } from './simulator';
import type { BenchEnv } from './system';
import { percentile } from './tally';

/** The scenario's knobs: `BENCH_SURGE_*` (see `readSurgeSettings`). */
export interface SurgeSettings {
  readonly followers: number;
  readonly inFlight: number;
  readonly pacedPerSecond: number;
  readonly mode: 'plaintext' | 'safe';
}

/** One phase's numbers. */
export interface SurgePhase {
  /** `max`: as fast as answered; `paced`: follows started at `targetPerSecond`. */
  readonly label: 'max' | 'paced';
  readonly targetPerSecond: number | null;
  readonly followers: number;
  /** Pushes answered 200 `success` per second of the phase. */
  readonly answeredPerSecond: number;
  /** Pushes not answered 200 `success` (status 0 = no answer within WeChat's 5 s). */
  readonly refused: number;
  readonly answerMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Followers with exactly one enrollment in the sequence, none, and more than one (the database). */
  readonly enrolledOnce: number;
  readonly notEnrolled: number;
  readonly enrolledTwice: number;
  /** Step 1 from the simulator's record: followers who got it, got it twice; lateness = arrival − (follow + 1 s). */
  readonly stepOneDelivered: number;
  readonly stepOneDuplicates: number;
  readonly lateness: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Step-1 rows `skipped` with reason `window_closed` (the database). */
  readonly windowClosed: number;
}

export interface SurgeResult {
  readonly mode: SurgeSettings['mode'];
  readonly inFlight: number;
  readonly phases: readonly SurgePhase[];
}

const STEP_OFFSET_MS = 1000;
const STEP_TEXT = 'surge step 1';
const PUSH_TOKEN = 'benchSurgeToken0';
const AES_KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const rule = (count: number, windowMs: number) => ({ count, windowMs });
/** The official table, except a 4 s follow window: a step 1 more than 3 s late is skipped. */
const POLICY = {
  message: rule(5, 48 * 3600_000),
  subscribe: rule(3, 4000),
  scan: rule(3, 60_000),
  click: rule(3, 60_000),
};
const STALL_MS = 15_000;
const DUPLICATE_WATCH_MS = 2_000;

/**
 * `BENCH_SURGE_FOLLOWERS` per phase (3,000 × BENCH_SCALE, at least 200), `BENCH_SURGE_IN_FLIGHT` (100),
 * `BENCH_SURGE_RATE` follows/s of the paced phase (1,000), `BENCH_SURGE_MODE` `plaintext` (default) or `safe`.
 */
export function readSurgeSettings(env: Record<string, string | undefined>): SurgeSettings {
  const scale = Number(env.BENCH_SCALE ?? 1);
  const num = (name: string, def: number) => {
    const n = Number(env[name] ?? def);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`);
    return n;
  };
  const mode = env.BENCH_SURGE_MODE ?? 'plaintext';
  if (mode !== 'plaintext' && mode !== 'safe') throw new Error('BENCH_SURGE_MODE: plaintext or safe');
  return {
    followers: num('BENCH_SURGE_FOLLOWERS', Math.max(200, Math.round(3000 * scale))),
    inFlight: num('BENCH_SURGE_IN_FLIGHT', 100),
    pacedPerSecond: num('BENCH_SURGE_RATE', 1000),
    mode,
  };
}

interface Follow {
  readonly openid: string;
  readonly startedAt: number;
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

/** Asks the simulator to follow as `openid`: it signs the push and delivers it to the webhook. */
async function follow(sim: SimulatorProcess, appId: string, openid: string): Promise<Follow> {
  const startedAt = Date.now();
  const res = await fetch(`${sim.url}/__sim/users/${openid}/follow`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ appId }),
  });
  if (!res.ok) throw new Error(`the simulator refused the follow: ${res.status} ${await res.text()}`);
  const outcome = (await res.json()) as { pushes: { status: number; body: string; ms: number }[] };
  const { status, body, ms } = outcome.pushes[0];
  return { openid, startedAt, status, body, ms };
}

/** Pushes `count` follows with `inFlight` outstanding; paced, the i-th starts no earlier than i / rate s. */
async function drive(
  sim: SimulatorProcess,
  appId: string,
  openids: readonly string[],
  inFlight: number,
  perSecond: number | null,
): Promise<{ follows: Follow[]; seconds: number }> {
  const follows: Follow[] = [];
  let next = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < openids.length) {
      const i = next++;
      if (perSecond !== null) {
        const wait = t0 + (i * 1000) / perSecond - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      follows.push(await follow(sim, appId, openids[i]));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { follows, seconds: (performance.now() - t0) / 1000 };
}

/** Enrollments per follower and window-closed skips of the phase's followers, read from the database. */
async function readDatabase(
  db: pg.Client,
  openidPrefix: string,
): Promise<{ enrollments: Map<string, number>; windowClosed: number; final: number }> {
  const like = `${openidPrefix}%`;
  const enrolled = await db.query<{ openid: string; n: string }>(
    'SELECT openid, count(*) AS n FROM enrollments WHERE openid LIKE $1 GROUP BY openid',
    [like],
  );
  const steps = await db.query<{ closed: string; final: string }>(
    `SELECT count(*) FILTER (WHERE status = 'skipped' AND status_reason = 'window_closed') AS closed,
            count(*) FILTER (WHERE status NOT IN ('pending', 'queued', 'sending')) AS final
       FROM scheduled_messages WHERE openid LIKE $1`,
    [like],
  );
  return {
    enrollments: new Map(enrolled.rows.map((r) => [r.openid, Number(r.n)])),
    windowClosed: Number(steps.rows[0].closed),
    final: Number(steps.rows[0].final),
  };
}

const sorted = (values: number[]) => values.sort((a, b) => a - b);
const spread = (values: number[]) => {
  const v = sorted(values);
  return { p50: percentile(v, 50), p99: percentile(v, 99), max: v.at(-1) ?? NaN };
};

async function phase(
  ctx: { sim: SimulatorProcess; db: pg.Client; appId: string; tag: string; log: (l: string) => void },
  settings: SurgeSettings,
  label: SurgePhase['label'],
): Promise<SurgePhase> {
  const { sim, db } = ctx;
  await sim.clear();
  const prefix = `${ctx.tag}-${label}-`;
  const openids = Array.from({ length: settings.followers }, (_, i) => `${prefix}${i}`);
  const target = label === 'paced' ? settings.pacedPerSecond : null;
  const { follows, seconds } = await drive(sim, ctx.appId, openids, settings.inFlight, target);
  const answered = follows.filter((f) => f.status === 200 && f.body === 'success');

  // Every step 1 reaches a final state (sent, or skipped when its window closed); then a little longer.
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const { final } = await readDatabase(db, prefix);
    if (final !== last) [last, lastChange] = [final, Date.now()];
    if (final >= answered.length || Date.now() - lastChange > STALL_MS) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise((r) => setTimeout(r, DUPLICATE_WATCH_MS));

  const { enrollments, windowClosed } = await readDatabase(db, prefix);
  const startedAt = new Map(follows.map((f) => [f.openid, f.startedAt]));
  const firstArrival = new Map<string, number>();
  let duplicates = 0;
  for (const r of await sim.received()) {
    if (r.tag !== STEP_TEXT || !startedAt.has(r.openid)) continue;
    if (firstArrival.has(r.openid)) duplicates++;
    else firstArrival.set(r.openid, r.receivedAt);
  }
  const counts = openids.map((o) => enrollments.get(o) ?? 0);
  const result: SurgePhase = {
    label,
    targetPerSecond: target,
    followers: openids.length,
    answeredPerSecond: answered.length / seconds,
    refused: follows.length - answered.length,
    answerMs: spread(follows.map((f) => f.ms)),
    enrolledOnce: counts.filter((n) => n === 1).length,
    notEnrolled: counts.filter((n) => n === 0).length,
    enrolledTwice: counts.filter((n) => n > 1).length,
    stepOneDelivered: firstArrival.size,
    stepOneDuplicates: duplicates,
    lateness: spread([...firstArrival].map(([o, at]) => at - startedAt.get(o)! - STEP_OFFSET_MS)),
    windowClosed,
  };
  ctx.log(
    `  surge ${label}${target ? ` @${target}/s` : ''}: ${Math.round(result.answeredPerSecond)} follows/s answered` +
      ` (${result.refused} not), answer p50 ${result.answerMs.p50} p99 ${result.answerMs.p99} ms; enrolled once` +
      ` ${result.enrolledOnce}/${result.followers} (twice ${result.enrolledTwice}); step 1 sent` +
      ` ${result.stepOneDelivered} (dup ${duplicates}), lateness p50 ${result.lateness.p50} p99` +
      ` ${result.lateness.p99} ms; window_closed ${windowClosed}`,
  );
  return result;
}

/**
 * Runs the surge on wechat-drip in levels mode with a simulator of its own (whose pushes go to this run's
 * api port, and which enforces the same window policy), then stops both.
 */
export async function followerSurge(ctx: {
  env: BenchEnv;
  root: string;
  settings: SurgeSettings;
  tag: string;
  log: (line: string) => void;
}): Promise<SurgeResult> {
  const { env, settings } = ctx;
  const apiPort = await freePort();
  const account = {
    token: PUSH_TOKEN,
    windowPolicy: POLICY,
    ...(settings.mode === 'safe' ? { encodingAESKey: AES_KEY, pushMode: 'safe' } : {}),
  };
  const sim = await startSimulator({
    root: ctx.root,
    port: await freePort(),
    appId: env.appId,
    secret: env.secret,
    account,
    webhookUrl: `http://127.0.0.1:${apiPort}`,
    enforceWindow: true,
  });
  let system: DripSystem | null = null;
  const db = new pg.Client({ connectionString: env.databaseUrl });
  try {
    system = createDripSystem({ ...env, simUrl: sim.url }, 'levels', env.rabbitmqUrl, { account, apiPort });
    await system.start();
    await system.admin('/v1/sequences', {
      appId: env.appId,
      name: 'surge welcome',
      status: 'active',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: STEP_OFFSET_MS, message: { msgtype: 'text', text: { content: STEP_TEXT } } }],
    });
    await db.connect();
    await db.query(`SET search_path TO ${system.schemaName()}`);
    const shared = { sim, db, appId: env.appId, tag: ctx.tag, log: ctx.log };
    const phases = [await phase(shared, settings, 'max'), await phase(shared, settings, 'paced')];
    return { mode: settings.mode, inFlight: settings.inFlight, phases };
  } finally {
    await db.end().catch(() => {});
    await system?.stop();
    await sim.stop();
  }
}

/** The surge table: one row per phase of each run (no peers: they have no webhook). */
export function renderSurgeTable(name: string, results: readonly SurgeResult[]): string {
  const fmt = (n: number) => (Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US'));
  const head = [
    'run · phase',
    'follows/s answered',
    'answer p50',
    'p99',
    'enrolled once',
    'twice',
    'step 1 sent (dup)',
    'lateness p50',
    'p99',
    'window closed',
  ];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rows = results.flatMap((r, run) =>
    r.phases.map((p) =>
      line([
        `${run + 1} · ${p.label}${p.targetPerSecond ? ` @${fmt(p.targetPerSecond)}/s` : ''}`,
        fmt(p.answeredPerSecond),
        `${fmt(p.answerMs.p50)} ms`,
        `${fmt(p.answerMs.p99)} ms`,
        `${fmt(p.enrolledOnce)} of ${fmt(p.followers)}`,
        fmt(p.enrolledTwice),
        `${fmt(p.stepOneDelivered)} (${fmt(p.stepOneDuplicates)})`,
        `${fmt(p.lateness.p50)} ms`,
        `${fmt(p.lateness.p99)} ms`,
        fmt(p.windowClosed),
      ]),
    ),
  );
  const mode = results[0]?.mode ?? 'plaintext';
  return [
    `### 8. Follower surge (${name}; signed ${mode} follow pushes from the simulator, ` +
      `${results[0]?.inFlight ?? 100} in flight; step 1 at +1 s, 4 s follow window)`,
    line(head),
    line(head.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...rows,
  ].join('\n');
}
