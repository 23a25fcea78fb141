/**
 * `make run` (scripts/run-local.sh) as a newcomer meets it (issue 26): the environment wins over the
 * settings file, and Ctrl-C — SIGINT to the terminal's whole foreground group — stops the service once,
 * gracefully, with no error logged.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHarness, freePort, type Harness } from '../helpers/harness';
import { withSearchPath } from '../helpers/services';

const ROOT = resolve(__dirname, '../..');
jest.setTimeout(120_000);

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await createHarness({ LOG_LEVEL: 'info' });
  dir = mkdtempSync(join(tmpdir(), 'run-local-'));
});
/** Stops what a test started, even when it failed half-way. */
const afterCleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of afterCleanup.splice(0)) await clean();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h.close();
});

/** A settings file as `make run` reads it: KEY='value' lines. */
const settingsFile = (settings: Record<string, string>): string => {
  const file = join(dir, 'test.env');
  writeFileSync(
    file,
    Object.entries(settings)
      .map(([k, v]) => `${k}='${v}'`)
      .join('\n') + '\n',
  );
  return file;
};

describe('Operating it: make run', () => {
  it('takes the environment over the file, and stops once, gracefully, on Ctrl-C', async () => {
    const filePort = String(await freePort());
    const file = settingsFile({
      ...h.env,
      DATABASE_URL: withSearchPath(h.env.DATABASE_URL, h.db.schema),
      START_SIMULATOR: 'false',
      // The file says one port; the environment another, which wins.
      HTTP_PORT: filePort,
    });
    const child = spawn('bash', ['scripts/run-local.sh'], {
      cwd: ROOT,
      // A group of its own, as a terminal's foreground job: Ctrl-C signals the whole group.
      detached: true,
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME ?? '/tmp',
        ENV_FILE: file,
        HTTP_PORT: h.env.HTTP_PORT,
      },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    // Whatever fails below, the script stops what it started (its processes run in sessions of their own).
    const stop = () => (child.exitCode === null ? process.kill(-child.pid!, 'SIGINT') : undefined);
    afterCleanup.push(async () => {
      stop();
      await exited;
    });
    const deadline = Date.now() + 60_000;
    while (!out.includes('wechat-drip is running') && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain(`API          http://127.0.0.1:${h.env.HTTP_PORT}`);
    expect((await fetch(`http://127.0.0.1:${h.env.HTTP_PORT}/healthz`)).status).toBe(200);
    expect(await fetch(`http://127.0.0.1:${filePort}/healthz`).catch(() => 'refused')).toBe('refused');
    // The migrations said nothing on the way (they log at warn under make run); the service's few start-up
    // lines came before the banner as lines a person reads, not JSON.
    expect(out).not.toContain('migrate');
    const beforeBanner = out.slice(0, out.indexOf('wechat-drip is running')).trim().split('\n');
    expect(beforeBanner.length).toBeLessThanOrEqual(12);
    expect(beforeBanner.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(out).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} service INFO {2}api listening {2}url=http:\/\/127\.0\.0\.1:\d+$/m,
    );

    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(130);
    // Every line of the graceful stop was shown before the script ended, the formatter stopping last.
    const lines = out.split('\n');
    expect(lines.filter((l) => / service INFO {2}shutting down/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / service INFO {2}stopped/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / (ERROR|FATAL) /.test(l))).toEqual([]);
  });

  it('with .env.example and two ports set, the ops port and the URLs between service and simulator follow', async () => {
    const [httpPort, simPort] = [await freePort(), await freePort()];
    const file = join(dir, 'example.env');
    writeFileSync(
      file,
      readFileSync(join(ROOT, '.env.example'), 'utf8') +
        Object.entries({
          ADMIN_TOKEN: h.env.ADMIN_TOKEN,
          ACCOUNTS_ENCRYPTION_KEY: h.env.ACCOUNTS_ENCRYPTION_KEY,
          DATABASE_URL: withSearchPath(h.env.DATABASE_URL, h.db.schema),
          BROKER_PREFIX: h.env.BROKER_PREFIX,
          LEVELS_COUNT: h.env.LEVELS_COUNT,
          HTTP_PORT: String(httpPort),
          SIM_PORT: String(simPort),
        })
          .map(([k, v]) => `${k}='${v}'`)
          .join('\n') +
        '\n',
    );
    const child = spawn('bash', ['scripts/run-local.sh'], {
      cwd: ROOT,
      detached: true,
      // LOG_FORMAT=json: the logs as the service writes them, not as lines.
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ENV_FILE: file, LOG_FORMAT: 'json' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes('wechat-drip is running') && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`ops          http://127.0.0.1:${httpPort + 1}/readyz`);
      expect(out).toContain(`simulator    http://127.0.0.1:${simPort}`);
      expect(out).toMatch(/^\{"level":30,.*"msg":"api listening"\}$/m);
      // A follower writes through the simulator: its push reaches the service's webhook on the moved port.
      const sim = await fetch(`http://127.0.0.1:${simPort}/__sim/users/o-ports/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appId: 'wxdemo0000000001', content: '你好' }),
      });
      expect(sim.status).toBe(200);
      const seen = async () => {
        const res = await fetch(`http://127.0.0.1:${httpPort}/v1/followers/wxdemo0000000001/o-ports`, {
          headers: { authorization: `Bearer ${h.env.ADMIN_TOKEN}` },
        });
        return res.status === 200 && JSON.stringify(await res.json()).includes('"message"');
      };
      const until = Date.now() + 15_000;
      while (!(await seen()) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      expect(await seen()).toBe(true);
    } finally {
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    }
  });
});
