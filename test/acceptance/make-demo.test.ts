import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { envExample } from './support/env-example';
import type { Account } from './support/types';
import { ACCOUNTS_ENCRYPTION_KEY, ADMIN_TOKEN, startWorld, type World } from './support/world';

const ROOT = path.resolve(__dirname, '../..');
// 40 follows for the drip (3 messages each), and so the journey's minimum of 10 followers: by i % 10,
// 0–1 reply 1 and then 领取, 2–3 reply 1, 4–9 stay silent.
const DEMO_FOLLOWS = 40;
const JOURNEY = { followers: 10, yes: 4, no: 6, converted: 2 };

// docs/operations.md "Operating it" and README "The two commands": `make demo` runs scripts/demo.js
// against the service run-local.sh started from .env. Here the same script runs against a world configured
// like .env.example (the demo account, the official window policy), pointed at it through the environment,
// which wins over .env (scripts/lib/local-env.js).
const example = envExample();
const accounts = JSON.parse(example.WECHAT_ACCOUNTS) as Account[];

let world: World;
beforeAll(async () => {
  world = await startWorld({
    name: 'make-demo',
    accounts,
    baseEnv: example,
    env: { ACCOUNTS_ENCRYPTION_KEY, ADMIN_TOKEN },
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** Runs scripts/demo.js to its end, in a directory without .env: answers its exit code and output. */
function runDemo(w: World): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const api = new URL(w.api.url);
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/demo.js')], {
    cwd: mkdtempSync(path.join(tmpdir(), 'make-demo-')),
    env: {
      PATH: process.env.PATH ?? '',
      HTTP_HOST: api.hostname,
      HTTP_PORT: api.port,
      WECHAT_API_BASE_URL: w.sim.url,
      WECHAT_ACCOUNTS: example.WECHAT_ACCOUNTS,
      ADMIN_TOKEN,
      DEMO_FOLLOWS: String(DEMO_FOLLOWS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

interface PathResult {
  path: string;
  entered: number;
  converted: number;
  wait: { waiting: number; yes: number; no: number; ended: number } | null;
}

describe('Operating it: make demo', () => {
  it('shows the drip, then a two-branch journey with a goal flowing as cued, checks both and exits 0', async () => {
    const { followers, yes, no, converted } = JOURNEY;
    const { code, stdout, stderr } = await runDemo(world);
    if (code !== 0) throw new Error(`demo.js exited with ${code}:\n${stdout}\n${stderr}`);
    expect(stderr).toBe('');
    expect(stdout).toContain(`done: all ${DEMO_FOLLOWS * 3} messages sent`);
    expect(stdout).toContain('done: the journey went as cued');
    expect(stdout).not.toContain('FAIL');
    expect(stdout.match(/^ {3}ok {3}/gm)).toHaveLength(5);
    expect(stdout).toContain(`replied 1 on cue → yes path: ${yes} (expected ${yes})`);
    expect(stdout).toContain(`converted: ${converted}, 20.0 %`);
    // The live block's last state, a line per path, the wait's outcomes and the conversions.
    const pathLine = (name: string, n: number) =>
      new RegExp(`^ {3}${name} +entered +${n} +sent +${n}/${n} `, 'm');
    expect(stdout).toMatch(pathLine('main', followers));
    expect(stdout).toMatch(pathLine('yes', yes));
    expect(stdout).toMatch(pathLine('no', no));
    expect(stdout).toContain(`wait yes ${yes}  no ${no}  waiting 0`);
    expect(stdout).toContain(`goal converted ${converted} of ${followers} (20.0 %)`);

    // What the demo said it checked, from the API: the journey it created and its results page.
    const { sequences } = (await world.api('/v1/sequences')).body as {
      sequences: { id: string; name: string }[];
    };
    const journey = sequences.find((s) => s.name.startsWith('demo journey '));
    expect(journey).toBeDefined();
    expect(stdout).toContain(`Admin page: ${world.api.url}/admin/`);
    expect(stdout).toContain(`the journey's results: ${world.api.url}/admin/sequences/${journey!.id}`);
    const results = (await world.api(`/v1/sequences/${journey!.id}/results`)).body as {
      paths: PathResult[];
      conversions: { converted: number; rate: number };
    };
    expect(results.paths.map((p) => [p.path, p.entered, p.converted])).toEqual([
      ['main', followers, 0],
      ['yes', yes, converted],
      ['no', no, 0],
    ]);
    expect(results.paths[0].wait).toEqual({ waiting: 0, yes, no, ended: 0 });
    expect(results.conversions).toMatchObject({ converted: converted, rate: 0.2 });

    // The followers as the simulator played them; the cues are gone afterwards.
    const run = /demo journey (\S+)/.exec(journey!.name)![1];
    const texts = (group: string, i: number) => world.sim.texts(`o-journey-${run}-${group}-${i}`);
    const invitation = expect.stringContaining('回复 1 领取新人优惠券');
    const coupon = expect.stringContaining('新人优惠券已到账');
    expect(await texts('reply-claim', 0)).toEqual([invitation, coupon]);
    expect(await texts('reply', 3)).toEqual([invitation, coupon]);
    expect(await texts('silent', 9)).toEqual([invitation, expect.stringContaining('还在吗')]);
    expect(await world.sim.texts(`o-demo-${run}-0`)).toEqual(
      [1, 2, 3].map((n) => `欢迎关注！第 ${n} 条 (demo ${run})`),
    );
    const cues = await fetch(`${world.sim.url}/__sim/cues`);
    expect(await cues.json()).toEqual({ cues: null });
  }, 100_000);
});
