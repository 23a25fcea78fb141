import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import type { Logger } from '../logger';
import type { SimulatorAccount } from './config';
import type { Followers } from './followers';
import { pushNonce, toWirePush, type PushChannel, type PushField, type WirePush } from './push-format';
import { createSimCipher } from './sim-crypto';
import { originalIdOf } from './original-id';
import { noticePopupFields, noticeSentFields, plainFields } from './notice-push';
import { EVENTS, OPENID, REQUESTS, type PushRequest } from './push-requests';
import type { NoticeSubscriptions } from './notice-subscriptions';
import { templateReportFields, type TemplateReportStatus } from './template-reports';

/** The follower actions the simulator can push to the webhook. */
export const PUSH_ACTIONS = ['follow', 'unfollow', 'scan', 'click', 'message', 'notice'] as const;
export type PushAction = (typeof PUSH_ACTIONS)[number];

/** What the webhook answered to one delivery of the push. */
export interface PushDelivery {
  /** HTTP status; 0 when no answer came (`error` says why). */
  readonly status: number;
  /** The answer's body text, as received. */
  readonly body: string;
  /** Time to the full answer, in ms. */
  readonly ms: number;
  readonly error?: string;
}

/** The result of one push action: the plaintext fields sent, the request itself and every delivery's answer. */
export interface PushOutcome {
  /** The push's fields before any encryption (CreateTime, MsgId, … as strings). */
  readonly fields: Readonly<Record<string, string>>;
  /** The request as it went out (path with its query, body, content type): what a capture of it holds. */
  readonly wire: { readonly path: string; readonly body: string; readonly contentType: string };
  readonly pushes: readonly PushDelivery[];
}

/** A push request that cannot be carried out; the route answers it with 400. */
export class PushRequestError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid push request: ${problems.join('; ')}`);
  }
}

/** Pushes follower actions to the webhook. */
export interface Pusher {
  /** Validates `body` for `action`, records the interaction, then delivers the push `repeat` times. */
  push(action: string, openid: string, body: unknown): Promise<PushOutcome>;
  /** Aborts deliveries in flight and closes the connections to the webhook (the simulator is closing). */
  close(): Promise<void>;
  /** Pushes for this account from now on (replacing its token, key and mode). Throws if unusable. */
  register(account: SimulatorAccount): void;
  /** Pushes the `subscribe_msg_sent_event` of a notice just sent (once, its answer only logged). */
  pushNoticeSent(appId: string, openid: string, templateId: string, msgid: number): Promise<void>;
  /** Pushes the `TEMPLATESENDJOBFINISH` delivery report of a template message just sent (likewise). */
  pushTemplateReport(
    appId: string,
    openid: string,
    msgid: number,
    status: TemplateReportStatus,
  ): Promise<void>;
}

/** WeChat gives up on a webhook after 5 s (reference/wechat.md §5.3). */
const WEBHOOK_TIMEOUT_MS = 5000;
/** Deliveries of one follower push left unanswered before WeChat gives up on it (§5.3). */
const PUSH_ATTEMPTS = 3;
/** Why a delivery got no answer, e.g. `ECONNREFUSED` or `UND_ERR_HEADERS_TIMEOUT` (WeChat's 5 s). */
function describeFailure(err: unknown): string {
  const e = err as { code?: string; message?: string } | null;
  return e?.code ?? e?.message ?? String(err);
}

const digest = (text: string): Buffer => createHash('sha1').update(text).digest();

/** Options of `createPusher`. */
export interface PusherOptions {
  readonly accounts: readonly SimulatorAccount[];
  readonly followers: Followers;
  readonly notices: NoticeSubscriptions;
  /** Pushes go to `{webhookBaseUrl}/wechat/{appId}`. */
  readonly webhookBaseUrl: string;
  readonly now: () => number;
  readonly logger: Logger;
}

/**
 * Creates the simulator's follower side: it builds pushes as WeChat does (format, mode, signatures,
 * encryption with the simulator's own sim-crypto, which the official vectors pin down) and POSTs them
 * to the webhook. Throws at creation for an account whose EncodingAESKey is unusable.
 */
export function createPusher(opts: PusherOptions): Pusher {
  const channels = new Map<string, PushChannel>();
  /** Each account's webhook path: its own, or the platform's for an account that authorized it. */
  const paths = new Map<string, string>();
  const known = new Set<string>();
  function register(a: SimulatorAccount): void {
    const mode = a.pushMode ?? 'plaintext';
    if (a.token !== undefined && mode !== 'plaintext' && a.encodingAESKey === undefined) {
      throw new TypeError(`account ${a.appId}: pushMode ${mode} needs an encodingAESKey`);
    }
    known.add(a.appId);
    if (a.token === undefined) return void channels.delete(a.appId);
    const cipher =
      mode === 'plaintext' || a.encodingAESKey === undefined
        ? null
        : createSimCipher(a.viaComponent ?? a.appId, a.encodingAESKey);
    const path = a.viaComponent === undefined ? '/wechat/' : '/wechat/platform/';
    paths.set(a.appId, `${path}${encodeURIComponent(a.appId)}`);
    channels.set(a.appId, { appId: a.appId, token: a.token, mode, format: a.pushFormat ?? 'xml', cipher });
  }
  for (const a of opts.accounts) register(a);
  // Its own connection pool, so that closing the simulator leaves no keep-alive socket behind; WeChat
  // pushes from many servers at once, so enough connections that a surge of 100 in flight does not queue.
  const agent = new Agent({ connections: 128 });
  // Unique across restarts (a restarted simulator must not repeat MsgIds the service has deduplicated)
  // and above 2^53, like WeChat's, so that a service parsing them as numbers is caught.
  let nextMsgId = BigInt(Date.now()) * 1_000_000n;

  function parse(
    action: string,
    openid: string,
    body: unknown,
  ): { action: PushAction; request: PushRequest } {
    if (!(PUSH_ACTIONS as readonly string[]).includes(action)) {
      throw new PushRequestError([`unknown action ${action}; one of ${PUSH_ACTIONS.join(', ')}`]);
    }
    const problems: string[] = OPENID.test(openid) ? [] : ['openid must be 1–128 letters, digits, _ or -'];
    const parsed = REQUESTS[action as PushAction].safeParse(body);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`));
      throw new PushRequestError(problems);
    }
    const request: PushRequest = parsed.data;
    if (!known.has(request.appId)) problems.push(`unknown appId ${request.appId}`);
    else if (!channels.has(request.appId)) problems.push(`account ${request.appId} has no push token`);
    if (problems.length > 0) throw new PushRequestError(problems);
    return { action: action as PushAction, request };
  }

  function fieldsOf(action: PushAction, r: PushRequest, openid: string, createTimeS: string): PushField[] {
    const head: PushField[] = [
      ['ToUserName', originalIdOf(r.appId), 'text'],
      ['FromUserName', openid, 'text'],
      ['CreateTime', createTimeS, 'number'],
    ];
    const event = (name: string): PushField[] => [
      ...head,
      ['MsgType', 'event', 'text'],
      ['Event', name, 'text'],
    ];
    // A QR code's ticket is fixed per code, hence derived from the scene rather than random.
    const ticket = (s: string): PushField => [
      'Ticket',
      `gQ${digest(`${r.appId}:${s}`).toString('base64url')}`,
      'text',
    ];
    switch (action) {
      case 'follow':
        return r.scene === undefined
          ? event('subscribe')
          : [...event('subscribe'), ['EventKey', `qrscene_${r.scene}`, 'text'], ticket(r.scene)];
      case 'unfollow':
        return event('unsubscribe');
      case 'scan':
        return [...event('SCAN'), ['EventKey', r.scene!, 'text'], ticket(r.scene!)];
      case 'click':
        return [...event('CLICK'), ['EventKey', r.key!, 'text']];
      case 'notice':
        return [...event('subscribe_msg_popup_event'), noticePopupFields(r.answers!)];
      case 'message':
        nextMsgId += 1n;
        return [
          ...head,
          ['MsgType', 'text', 'text'],
          ['Content', r.content!, 'text'],
          ['MsgId', String(nextMsgId), 'number'],
        ];
    }
  }

  async function deliver(url: string, wire: WirePush): Promise<PushDelivery> {
    const started = performance.now();
    const ms = (): number => Math.round((performance.now() - started) * 10) / 10;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': wire.contentType },
        body: wire.body,
        dispatcher: agent,
        headersTimeout: WEBHOOK_TIMEOUT_MS,
        bodyTimeout: WEBHOOK_TIMEOUT_MS,
      });
      const body = await res.body.text();
      return { status: res.statusCode, body, ms: ms() };
    } catch (err) {
      return { status: 0, body: '', ms: ms(), error: describeFailure(err) };
    }
  }

  /**
   * Delivers a follower's push as WeChat does (reference/wechat.md §5.3: "微信服务器在五秒内收不到响应会断掉连接，
   * 并且重新发起请求，总共重试三次"): a push left unanswered (timeout, connection refused or cut) is sent
   * again, three times in all; an answer, whatever its status, ends it. Every attempt is returned.
   */
  async function deliverWithRetries(url: string, wire: WirePush): Promise<PushDelivery[]> {
    const attempts: PushDelivery[] = [];
    do attempts.push(await deliver(url, wire));
    while (attempts.at(-1)!.status === 0 && attempts.length < PUSH_ATTEMPTS);
    return attempts;
  }

  /** Pushes an event WeChat sends on its own after a send (a delivery report): once, its answer logged. */
  async function pushSendReport(appId: string, openid: string, event: readonly PushField[]): Promise<void> {
    const channel = channels.get(appId);
    if (channel === undefined) return;
    const timestampS = String(Math.floor(opts.now() / 1000));
    const fields: PushField[] = [
      ['ToUserName', originalIdOf(appId), 'text'],
      ['FromUserName', openid, 'text'],
      ['CreateTime', timestampS, 'number'],
      ['MsgType', 'event', 'text'],
      ...event,
    ];
    const wire = toWirePush(channel, fields, openid, timestampS, pushNonce());
    const delivery = await deliver(`${opts.webhookBaseUrl}${paths.get(appId)!}?${wire.query}`, wire);
    opts.logger.debug({ appId, event: event[0]?.[1], status: delivery.status }, 'pushed a send report');
  }

  return {
    register,
    async push(actionName, openid, body) {
      const { action, request } = parse(actionName, openid, body);
      const at = opts.now();
      const timestampS = String(Math.floor(at / 1000));
      const fields = fieldsOf(action, request, openid, timestampS);
      // WeChat's state changes when the user acts, whatever the webhook later answers.
      const followerEvent = EVENTS[action];
      if (followerEvent !== null) opts.followers.record(request.appId, openid, followerEvent, at);
      else opts.notices.answer(request.appId, openid, request.answers!);
      const channel = channels.get(request.appId)!;
      const wire = toWirePush(channel, fields, openid, timestampS, pushNonce(), request.layout);
      const path = `${paths.get(request.appId)!}?${wire.query}`;
      const url = `${opts.webhookBaseUrl}${path}`;
      const pushes: PushDelivery[] = [];
      if (request.concurrent) {
        const each = await Promise.all(
          Array.from({ length: request.repeat }, () => deliverWithRetries(url, wire)),
        );
        pushes.push(...each.flat());
      } else {
        for (let i = 0; i < request.repeat; i += 1) pushes.push(...(await deliverWithRetries(url, wire)));
      }
      opts.logger.debug({ appId: request.appId, action, statuses: pushes.map((p) => p.status) }, 'pushed');
      return {
        fields: plainFields(fields),
        wire: { path, body: wire.body, contentType: wire.contentType },
        pushes,
      };
    },
    pushNoticeSent: (appId, openid, templateId, msgid) =>
      pushSendReport(appId, openid, [
        ['Event', 'subscribe_msg_sent_event', 'text'],
        noticeSentFields(templateId, msgid),
      ]),
    pushTemplateReport: (appId, openid, msgid, status) =>
      pushSendReport(appId, openid, templateReportFields(msgid, status)),
    close: () => agent.destroy(),
  };
}
