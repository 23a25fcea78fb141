import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { envExample } from './support/env-example';
import { call } from './support/http';
import type { Account, SimMessage } from './support/types';
import { ACCOUNTS_ENCRYPTION_KEY, ADMIN_TOKEN, startWorld, type World } from './support/world';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const DELIMITER = '--- end of answer ---';

// README "The two commands" → "Try it": the service configured exactly like .env.example (the demo
// account, safe push mode, the official window policy); only ports, database and broker prefix differ.
const example = envExample();
const accounts = JSON.parse(example.WECHAT_ACCOUNTS) as Account[];
const DEMO_APP_ID = 'wxdemo0000000001';

let world: World;
beforeAll(async () => {
  // `make run` fills the empty ADMIN_TOKEN and ACCOUNTS_ENCRYPTION_KEY of .env.example with fresh ones.
  // The simulator reads the demo platform's four WECHAT_COMPONENT_* from the same .env.
  const platform = Object.fromEntries(
    Object.entries(example).filter(
      ([name]) => name.startsWith('WECHAT_COMPONENT_') && !name.endsWith('_URL'),
    ),
  );
  world = await startWorld({
    name: 'try-it',
    accounts,
    baseEnv: example,
    env: { ACCOUNTS_ENCRYPTION_KEY, ADMIN_TOKEN },
    simEnv: platform,
  });
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('The two commands: Try it', () => {
  it('sends a browser at the bare address to the admin page', async () => {
    const res = await fetch(`${world.api.url}/`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([302, '/admin/']);
    expect((await fetch(`${world.api.url}/`)).url).toBe(`${world.api.url}/admin/`);
  });

  it('.env.example configures the demo account in safe mode with the official window policy', () => {
    expect(accounts).toEqual([
      expect.objectContaining({ appId: DEMO_APP_ID, pushMode: 'safe', windowPolicy: 'official' }),
    ]);
  });

  it('.env.example configures the demo third-party platform, which the simulator plays: an account connects through it', async () => {
    expect(await world.api('/v1/platform')).toMatchObject({ status: 200, body: { configured: true } });
    // scripts/run-local.sh pushes the first ticket once the service is up, as here.
    expect((await call(`${world.sim.url}/__sim/component/ticket`, { method: 'POST' })).body).toMatchObject({
      status: 200,
      body: 'success',
    });
    const started = await world.api('/v1/platform/authorizations', {
      json: { redirectUri: `${world.api.url}/wechat/platform/callback` },
    });
    expect(started.status).toBe(201);
    const page = new URL(started.body.authorizationUrl as string);
    page.searchParams.set('sim_appid', 'wxdemoconnected01');
    const consented = await fetch(page, { redirect: 'manual' });
    const callback = await call(consented.headers.get('location')!);
    expect(callback.body).toMatchObject({ appId: 'wxdemoconnected01', outcome: 'created' });
  });

  it("runs the README's Try it commands as written: after o-demo writes in, the message scheduled with delayMs 5000 is in the simulator's record at the last command", async () => {
    const outputs = await runTryIt(world);
    expect(outputs).toHaveLength(3);
    const [push, created, listed] = outputs.map((o) => JSON.parse(o) as Record<string, unknown>);

    // 1) the follower writes in, which opens a 48 h contact window
    expect(push.pushes).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    // 2) POST /v1/messages
    expect(created).toMatchObject({ appId: DEMO_APP_ID, openid: 'o-demo', status: 'queued' });
    // 3) sleep 6; curl -s localhost:4100/__sim/messages
    const received = (listed.messages as SimMessage[]).filter((m) => m.openid === 'o-demo');
    expect(received).toEqual([
      expect.objectContaining({
        appId: DEMO_APP_ID,
        channel: 'custom',
        body: { touser: 'o-demo', msgtype: 'text', text: { content: '欢迎关注！' } },
      }),
    ]);
    const late = received[0].receivedAt - Date.parse(created.dueAt as string);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1000);
  }, 30_000);
});

/**
 * The shell block under README's "Try it", run by bash exactly as written, in a directory whose `.env`
 * is `.env.example` with a fresh ADMIN_TOKEN (as `make run` leaves it); only `localhost:3000` and `localhost:4100` are pointed
 * at this world's ports. Answers what each curl printed.
 */
async function runTryIt(w: World): Promise<string[]> {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Try it'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md has no sh block under "### Try it"');
  const script = block
    .replaceAll('localhost:3000', new URL(w.api.url).host)
    .replaceAll('localhost:4100', new URL(w.sim.url).host);
  const dir = mkdtempSync(path.join(tmpdir(), 'try-it-'));
  // As scripts/run-local.sh writes it: .env.example with a fresh ADMIN_TOKEN (this world's).
  const env = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  writeFileSync(path.join(dir, '.env'), env.replace(/^ADMIN_TOKEN=.*$/m, `ADMIN_TOKEN=${ADMIN_TOKEN}`));
  // Each curl's output on a line of its own, so that the three answers can be told apart.
  const delimited = `curl() { command curl "$@"; printf '\\n${DELIMITER}\\n'; }\n${script}`;
  const { stdout } = await execFileAsync('bash', ['-euo', 'pipefail', '-c', delimited], { cwd: dir });
  return stdout
    .split(`\n${DELIMITER}\n`)
    .map((o) => o.trim())
    .filter((o) => o !== '');
}
