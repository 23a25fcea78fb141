import { createCues } from './cues';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimulatorAccount, SimulatorOptions } from './config';
import { handleControl, type ControlTarget } from './control-routes';
import { createFaults, parseFaultSpec, type FaultSpec } from './faults';
import { FOLLOWER_ROUTES_PREFIX, handleFollowerRoute } from './follower-routes';
import { createFollowers, type FollowerView } from './followers';
import { createNoticeSubscriptions } from './notice-subscriptions';
import { createPauses, readBody, readBytes, sendJson } from './http-io';
import { createSendHandler, createSendStats, type SendStats } from './send-routes';
import { createPusher, type PushAction, type PushOutcome } from './pushes';
import { createOpenPlatform, type OpenPlatform } from './open-platform';
import { createMessageStore, type MessageFilter, type ReceivedMessage, type SimChannel } from './store';
import { createTokenRegistry, type TokenStats } from './tokens';
import { createTemplateReports } from './template-reports';
import { createTemplateRegistry, type SimTemplate } from './templates';
import { TEMPLATE_LIST_PATH, templateList } from './template-routes';
import { createQrCodes, QRCODE_CREATE_PATH } from './qrcode-routes';
import { ADD_MATERIAL_PATH, createMediaLibrary, UPLOAD_MAX_BYTES } from './media-routes';
import { WECHAT_ERRORS } from './wechat-errors';
import { resolveWindowPolicy } from './window-policy';

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
  /**
   * Acts as the follower, like `POST /__sim/users/:openid/:action`: records the interaction, pushes it
   * to the webhook `repeat` times and resolves with the answers. Throws PushRequestError for bad input.
   */
  push(action: PushAction, openid: string, body: PushBody): Promise<PushOutcome>;
  /** The simulator's view of a follower (`GET /__sim/users/:openid`); null if the account is unknown. */
  follower(appId: string, openid: string): FollowerView | null;
  /** Knows `account` from now on (`POST /__sim/accounts`), or replaces it. Throws if its key is unusable. */
  register(account: SimulatorAccount): void;
  /**
   * Replaces the account's template library (`POST /__sim/templates`); until then it holds the example
   * templates. Template sends are checked against it, `template/get_all_private_template` lists it.
   */
  registerTemplates(appId: string, templates: readonly SimTemplate[]): void;
  /** The Open Platform it plays when given a component; null otherwise. */
  readonly openPlatform: OpenPlatform | null;
}

/** The body of a push action; which optional field is required depends on the action. */
export interface PushBody {
  readonly appId: string;
  /** Deliveries of the identical push in all, like WeChat's retries; 1–10, default 1. */
  readonly repeat?: number;
  /** Deliver the repeats at once instead of one after another. */
  readonly concurrent?: boolean;
  /** follow (optional: a parametric QR code), scan (required). */
  readonly scene?: string | number;
  /** click: the menu key. */
  readonly key?: string;
  /** message: the text. */
  readonly content?: string;
  /** notice: the follower's answers in a subscription-notice popup, 1–5 templates. */
  readonly answers?: readonly { readonly templateId: string; readonly status: 'accept' | 'reject' }[];
}

export type { SimulatorOptions } from './config';

const SEND_PATHS: Readonly<Record<string, SimChannel>> = {
  '/cgi-bin/message/custom/send': 'custom',
  '/cgi-bin/message/template/send': 'template',
  '/cgi-bin/message/subscribe/bizsend': 'notice',
};

/**
 * Creates a WeChat API simulator: a plain node:http server (no framework, it must take tens of
 * thousands of requests per second) that answers the token and send endpoints with WeChat's rules and
 * errcodes (the contact window included), records what it accepted, can inject faults, and acts as
 * followers by pushing signed events to the webhook. Throws for an invalid windowPolicy or
 * EncodingAESKey.
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
  const policies = new Map(opts.accounts.map((a) => [a.appId, resolveWindowPolicy(a.windowPolicy)]));
  const followers = createFollowers({
    policies,
    enforce: opts.enforceContactWindow ?? true,
  });
  const webhookBaseUrl = (opts.webhookBaseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const notices = createNoticeSubscriptions();
  const templateReports = createTemplateReports();
  const withoutPublishApis = new Set(
    opts.accounts.filter((a) => a.publishApis === false).map((a) => a.appId),
  );
  const templates = createTemplateRegistry();
  const qrcodes = createQrCodes();
  const media = createMediaLibrary();
  const pusher = createPusher({ accounts: opts.accounts, followers, notices, webhookBaseUrl, now, logger });
  const cues = createCues();
  const cueTimers = new Set<NodeJS.Timeout>();
  /** Plays the followers' cued answers to a send just accepted, each after its delay. */
  const answerCues = (appId: string, openid: string, text: string): void => {
    for (const cued of cues.answer(appId, openid, text)) {
      const timer = setTimeout(() => {
        cueTimers.delete(timer);
        pusher
          .push(cued.action, openid, { appId, ...cued.body })
          .catch((err: Error) => logger.warn({ err: err.message, openid }, 'cued push failed'));
      }, cued.afterMs);
      cueTimers.add(timer);
    }
  };
  const { component, ticketIntervalMs = 600_000 } = opts;
  const openPlatform = component
    ? createOpenPlatform({
        component,
        tokens,
        webhookBaseUrl,
        ticketIntervalMs,
        logger,
        now,
        registerAccount: (account) => simulator.register(account),
      })
    : null;
  const handleSend = createSendHandler({
    tokens,
    faults,
    store,
    stats,
    pauses,
    followers,
    notices,
    templates,
    accepted: answerCues,
    reportNoticeSent: (appId, openid, templateId, msgid) =>
      pusher.pushNoticeSent(appId, openid, templateId, msgid),
    templateReports,
    reportTemplateSent: (appId, openid, msgid, status) =>
      pusher.pushTemplateReport(appId, openid, msgid, status),
    hasPublishApis: (appId) => !withoutPublishApis.has(appId),
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
    push: (action, openid, body) => pusher.push(action, openid, body),
    follower: (appId, openid) => (accountIds.has(appId) ? followers.view(appId, openid, now()) : null),
    openPlatform,
    registerTemplates: (appId, list) => templates.set(appId, list),
    register(account) {
      pusher.register(account);
      tokens.register(account.appId, account.secret);
      policies.set(account.appId, resolveWindowPolicy(account.windowPolicy));
      if (account.publishApis === false) withoutPublishApis.add(account.appId);
      else withoutPublishApis.delete(account.appId);
      accountIds.add(account.appId);
    },
  };

  const control: ControlTarget = {
    messages: (filter) => store.list(filter),
    resetMessages: simulator.resetMessages,
    stats: simulator.stats,
    faults,
    templateReports,
    cues,
    invalidateTokens: simulator.invalidateTokens,
    register: simulator.register,
    registerTemplates: simulator.registerTemplates,
    templates: (appId) => templates.list(appId),
    qrcodes: (appId) => qrcodes.list(appId),
    media: (appId) => media.list(appId),
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
    if (path === ADD_MATERIAL_PATH) {
      if (req.method !== 'POST') return sendJson(res, 200, WECHAT_ERRORS.requirePost);
      const contentType = req.headers['content-type'] ?? '';
      return sendJson(
        res,
        200,
        media.add(tokens, query, contentType, await readBytes(req, UPLOAD_MAX_BYTES)),
      );
    }
    if (path === QRCODE_CREATE_PATH) {
      if (req.method !== 'POST') return sendJson(res, 200, WECHAT_ERRORS.requirePost);
      let body: unknown = null;
      try {
        body = JSON.parse((await readBody(req)) ?? '') as unknown;
      } catch {
        // Not JSON: create answers 47001.
      }
      return sendJson(res, 200, qrcodes.create(tokens, query, body));
    }
    if (path === TEMPLATE_LIST_PATH) {
      if (req.method !== 'GET') return sendJson(res, 200, WECHAT_ERRORS.requireGet);
      return sendJson(res, 200, templateList(tokens, templates, query));
    }
    if (path.startsWith(FOLLOWER_ROUTES_PREFIX)) return handleFollowerRoute(simulator, req, res, path, query);
    if (openPlatform && (await openPlatform.handle(req, res, path, query))) return;
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

  async function close(): Promise<void> {
    pauses.releaseAll();
    for (const timer of cueTimers) clearTimeout(timer);
    cueTimers.clear();
    openPlatform?.close();
    await pusher.close();
    await new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  return simulator;
}
