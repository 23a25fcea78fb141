import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** One send as the simulator recorded it (what `GET /__sim/messages` lists, trimmed to what we use). */
export interface Received {
  readonly tag: string;
  /** The follower it went to (`touser`). */
  readonly openid: string;
  readonly receivedAt: number;
}

/** The WeChat simulator in a process of its own: the judge of what every system actually sent. */
export interface SimulatorProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything received since the last `clear()`, paged from its record. */
  received(): Promise<Received[]>;
  /** How many sends it has accepted since the last `clear()`. */
  count(): Promise<number>;
  clear(): Promise<void>;
  stop(): Promise<void>;
}

const PAGE = 100_000;

/**
 * Starts `dist/main/simulator.js` on `port` for one account, with the follower window not enforced — unless
 * `account` adds a push token and a window policy, `webhookUrl` says where its pushes go and `enforceWindow`
 * turns the follower checks on (the follower-surge scenario).
 */
export async function startSimulator(opts: {
  root: string;
  port: number;
  appId: string;
  secret: string;
  account?: Record<string, unknown>;
  webhookUrl?: string;
  enforceWindow?: boolean;
}): Promise<SimulatorProcess> {
  const url = `http://127.0.0.1:${opts.port}`;
  const child: ChildProcess = spawn(process.execPath, [path.join(opts.root, 'dist/main/simulator.js')], {
    env: {
      ...process.env,
      SIM_PORT: String(opts.port),
      SIM_ENFORCE_WINDOW: String(opts.enforceWindow ?? false),
      ...(opts.webhookUrl ? { SIM_WEBHOOK_URL: opts.webhookUrl } : {}),
      WECHAT_ACCOUNTS: JSON.stringify([
        { appId: opts.appId, secret: opts.secret, windowPolicy: 'none', ...opts.account },
      ]),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/__sim/stats`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the simulator did not start on ${url}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  // The seq of the last send before the latest clear: the record is listed from there.
  let since = 0;
  async function stats(): Promise<{ received: number; stored: number }> {
    return (await (await fetch(`${url}/__sim/stats`)).json()) as { received: number; stored: number };
  }
  return {
    url,
    pid: child.pid ?? -1,
    async received() {
      const out: Received[] = [];
      let from = since;
      for (;;) {
        const page = (await (await fetch(`${url}/__sim/messages?since=${from}&limit=${PAGE}`)).json()) as {
          messages: {
            seq: number;
            receivedAt: number;
            body: { touser?: string; text?: { content?: string } };
          }[];
          hasMore: boolean;
        };
        for (const m of page.messages)
          out.push({
            tag: m.body.text?.content ?? '',
            openid: m.body.touser ?? '',
            receivedAt: m.receivedAt,
          });
        if (!page.hasMore || page.messages.length === 0) return out;
        from = page.messages[page.messages.length - 1].seq;
      }
    },
    async count() {
      return (await stats()).stored;
    },
    async clear() {
      await fetch(`${url}/__sim/messages`, { method: 'DELETE' });
      since = (await stats()).received;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
