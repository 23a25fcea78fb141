import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger';
import type { SimulatorAccount } from './config';
import { ALWAYS_OPEN, type ContactWindowCheck } from './contact-window';
import { handleControl, type ControlTarget } from './control-routes';
import { createFaults, parseFaultSpec, type FaultSpec } from './faults';
import { createPauses, readBody, sendJson } from './http-io';
import { createSendHandler, createSendStats, type SendStats } from './send-routes';
import { createMessageStore, type MessageFilter, type ReceivedMessage } from './store';
import { createTokenRegistry, type TokenStats } from './tokens';
import { WECHAT_ERRORS } from './wechat-errors';

/** Everything `GET /__sim/stats` reports. */
export interface SimulatorStats extends SendStats {
  /** Messages currently held (after the last reset). */
  readonly stored: number;
  readonly tokens: TokenStats;
}

/** A running (or ready to run) WeChat API simulator, with accessors for in-process tests. */
export interface Simulator {
  /** Starts listening; port 0 picks a free port. */
  listen(port: number, host?: string): Promise<{ port: number; url: string }>;
  /** Stops listening, drops open connections and ends pending latency / hang waits. */
  close(): Promise<void>;
  /** The accepted sends, oldest first (same as `GET /__sim/messages`, without its default limit). */
  messages(filter?: MessageFilter): ReceivedMessage[];
  /** Forgets the received messages and the client_msg_id memory; counters are kept. */
  resetMessages(): number;
  stats(): SimulatorStats;
  /** Replaces the fault spec; omitted fields take their defaults. Throws on an invalid spec. */
  setFaults(spec: Partial<FaultSpec>): void;
  clearFaults(): void;
  /** Makes every current token of the account answer 40001; null if the account is unknown. */
  invalidateTokens(appId: string): number | null;
}

/** Options of `createSimulator`. */
export interface SimulatorOptions {
  readonly accounts: readonly SimulatorAccount[];
  /** Lifetime of issued tokens in seconds; default 7200. */
  readonly tokenTtlSeconds?: number;
  readonly logger: Logger;
  /** The contact-window seam (45015 / 45047); default lets everything through. */
  readonly contactWindow?: ContactWindowCheck;
  /** Clock in epoch ms for token lifetimes, dedup and receivedAt; tests move it. Default Date.now. */
  readonly now?: () => number;
}

const SEND_PATHS: Readonly<Record<string, 'custom' | 'template'>> = {
  '/cgi-bin/message/custom/send': 'custom',
  '/cgi-bin/message/template/send': 'template',
};

/**
 * Creates a WeChat API simulator: a plain node:http server (no framework, it must take tens of
 * thousands of requests per second) that answers the token and send endpoints with WeChat's rules and
 * errcodes, records what it accepted, and can inject faults.
 */
export function createSimulator(opts: SimulatorOptions): Simulator {
  const { logger } = opts;
  const accountIds = new Set(opts.accounts.map((a) => a.appId));
  const now = opts.now ?? Date.now;
  const tokenTtlSeconds = opts.tokenTtlSeconds ?? 7200;
  const tokens = createTokenRegistry({ accounts: opts.accounts, tokenTtlSeconds, now });
  const faults = createFaults();
  const store = createMessageStore();
  const stats = createSendStats();
  const pauses = createPauses();
  const handleSend = createSendHandler({
    tokens,
    faults,
    store,
    stats,
    pauses,
    contactWindow: opts.contactWindow ?? ALWAYS_OPEN,
    logger,
    now,
  });

  const simulator: Simulator = {
    listen: (port, host = '127.0.0.1') => listen(port, host),
    close: () => close(),
    messages: (filter) => store.list(filter).messages,
    resetMessages: () => store.reset(),
    stats: () => structuredClone({ ...stats, stored: store.size, tokens: tokens.stats }),
    setFaults(spec) {
      const parsed = parseFaultSpec(spec);
      if ('problems' in parsed) throw new TypeError(`invalid fault spec: ${parsed.problems.join('; ')}`);
      faults.set(parsed.spec);
    },
    clearFaults: () => faults.clear(),
    invalidateTokens: (appId) => (accountIds.has(appId) ? tokens.invalidate(appId) : null),
  };

  const control: ControlTarget = {
    messages: (filter) => store.list(filter),
    resetMessages: simulator.resetMessages,
    stats: simulator.stats,
    faults,
    invalidateTokens: simulator.invalidateTokens,
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
    const channel = SEND_PATHS[path];
    if (channel !== undefined) {
      if (req.method !== 'POST') return sendJson(res, 200, WECHAT_ERRORS.requirePost);
      return handleSend(req, res, query, channel);
    }
    if (path === '/cgi-bin/stable_token') {
      if (req.method !== 'POST') return sendJson(res, 200, WECHAT_ERRORS.requirePost);
      const raw = await readBody(req);
      let body: unknown = null;
      try {
        body = JSON.parse(raw ?? '') as unknown;
      } catch {
        // stableToken answers 47001 for anything that is not a JSON object.
      }
      return sendJson(res, 200, tokens.stableToken(body));
    }
    if (path === '/cgi-bin/token') {
      if (req.method !== 'GET') return sendJson(res, 200, WECHAT_ERRORS.requireGet);
      return sendJson(res, 200, tokens.classicToken(query));
    }
    if (path.startsWith('/__sim/')) return handleControl(control, req, res, path, query);
    return sendJson(res, 404, { errcode: 404, errmsg: `no such api: ${path}` });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      logger.error(
        { err: err instanceof Error ? err.message : String(err), path: req.url },
        'simulator failure',
      );
      sendJson(res, 500, { errcode: -1, errmsg: 'system error' });
    });
  });
  // Longer than any client's idle keep-alive, so the client, not the server, closes idle connections
  // (a server-side close racing a new request shows up as ECONNRESET in the client).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  function listen(port: number, host: string): Promise<{ port: number; url: string }> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const actual = (server.address() as AddressInfo).port;
        const hostPart = host.includes(':') ? `[${host}]` : host;
        resolve({ port: actual, url: `http://${hostPart}:${actual}` });
      });
    });
  }

  function close(): Promise<void> {
    pauses.releaseAll();
    return new Promise((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  return simulator;
}
