import { Pool as HttpPool } from 'undici';
import type { Logger } from '../logger';
import { isTokenErrcode } from './errcodes';
import { classifyRequestError, interpretAnswer, type WechatAnswer } from './http-answer';
import type { CustomMessage, NoticeMessage, TemplateMessage } from './message-schema';
import type { TokenStore } from './tokens';

/** The outcome of one send, for classifyErrcode and the delivery_attempts row. */
export interface SendResult {
  /** WeChat's errcode, 0 for success; null when no usable answer came back (network, timeout, 5xx, not JSON). */
  errcode: number | null;
  /** WeChat's errmsg, or what happened when errcode is null. */
  errmsg: string;
  /** Wall time of the whole send, including a token refresh and its one retry. */
  durationMs: number;
  /** Template sends (and notices, when WeChat answers one): WeChat's message id. */
  msgid?: string;
  /**
   * Set when no answer came back although the request may have reached WeChat (a headers or body timeout,
   * a connection broken mid-request): WeChat may have sent the message. Unset when it provably did not.
   */
  answerLost?: true;
}

/** Sends customer-service and template messages to WeChat. */
export interface WechatClient {
  /**
   * Sends a customer-service message to `openid`. Resolves with WeChat's verdict, whatever it is; rejects
   * only when no access token can be had (AppError `token_error` / `unknown_account`).
   */
  sendCustom(appId: string, openid: string, message: CustomMessage): Promise<SendResult>;
  /**
   * Sends a template message to `openid`; same contract as sendCustom. It goes out with `clientMsgId` as
   * its `client_msg_id` unless the message carries its own: WeChat sends one message per openid and
   * `client_msg_id` within 10 minutes, so sending the same message again within that time is harmless.
   */
  sendTemplate(
    appId: string,
    openid: string,
    message: TemplateMessage,
    clientMsgId: string,
  ): Promise<SendResult>;
  /** Sends a subscription notice (`message/subscribe/bizsend`) to `openid`; same contract as sendCustom. */
  sendNotice(appId: string, openid: string, message: NoticeMessage): Promise<SendResult>;
  /** Closes the keep-alive connections once in-flight requests are done. */
  close(): Promise<void>;
}

/** Options of `createWechatClient`. */
export interface WechatClientOptions {
  /** WeChat API base URL (the simulator in development); may carry a path prefix. */
  readonly baseUrl: string;
  /**
   * Longest wait for the answer's headers, and then for its body, in ms. undici checks these on a
   * coarse clock, so a timeout can fire up to about a second late.
   */
  readonly timeoutMs: number;
  /** Keep-alive connections to WeChat from this process. */
  readonly maxConnections: number;
  readonly tokens: TokenStore;
  readonly logger: Logger;
}

const CUSTOM_PATH = '/cgi-bin/message/custom/send';
const TEMPLATE_PATH = '/cgi-bin/message/template/send';
const NOTICE_PATH = '/cgi-bin/message/subscribe/bizsend';
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The `client_msg_id` of a scheduled message: its id without the dashes, 32 lowercase hex characters.
 * Deterministic, so every attempt at one message carries the same key; WeChat documents no length or
 * charset for it, so it stays within the tightest limit it does document for such keys (mass send's
 * `clientmsgid`, 64 bytes) and within `character_string`'s 32 ASCII characters.
 */
export function clientMsgIdOf(messageId: string): string {
  return messageId.replaceAll('-', '').toLowerCase();
}

/**
 * Creates the client: one keep-alive undici pool to the WeChat origin for the whole process. It adds
 * `touser`, and on a rejected token (40001 / 40014 / 42001) expires exactly that token and retries once
 * with a fresh one. It never retries -1 or network failures itself: the worker re-delays those through
 * the broker, so a retry survives a restart and respects the backoff policy.
 */
export function createWechatClient(opts: WechatClientOptions): WechatClient {
  const { tokens, logger } = opts;
  const base = new URL(opts.baseUrl);
  const pathPrefix = base.pathname.replace(/\/+$/, '');
  const http = new HttpPool(base.origin, {
    connections: opts.maxConnections,
    pipelining: 1,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    connectTimeout: opts.timeoutMs,
  });

  async function post(path: string, token: string, body: string): Promise<WechatAnswer> {
    try {
      const res = await http.request({
        method: 'POST',
        path: `${pathPrefix}${path}?access_token=${encodeURIComponent(token)}`,
        headers: JSON_HEADERS,
        body,
      });
      return interpretAnswer(res.statusCode, await res.body.text());
    } catch (err) {
      const failure = classifyRequestError(err);
      if (failure.fate === 'not_sent') return { errcode: null, errmsg: failure.errmsg };
      return { errcode: null, errmsg: failure.errmsg, answerLost: true };
    }
  }

  async function send(appId: string, openid: string, path: string, message: object): Promise<SendResult> {
    const startedAt = performance.now();
    const body = JSON.stringify({ touser: openid, ...message });
    const token = await tokens.getToken(appId);
    let answer = await post(path, token, body);
    if (isTokenErrcode(answer.errcode)) {
      logger.warn({ appId, errcode: answer.errcode }, 'access token rejected; expiring it and retrying once');
      await tokens.expireToken(appId, token);
      answer = await post(path, await tokens.getToken(appId), body);
    }
    const result: SendResult = {
      errcode: answer.errcode,
      errmsg: answer.errmsg,
      durationMs: Math.round(performance.now() - startedAt),
    };
    if (answer.msgid !== undefined) result.msgid = answer.msgid;
    if (answer.answerLost) result.answerLost = true;
    logger.debug({ appId, path, errcode: result.errcode, durationMs: result.durationMs }, 'wechat send');
    return result;
  }

  return {
    sendCustom: (appId, openid, message) => send(appId, openid, CUSTOM_PATH, message),
    sendTemplate: (appId, openid, message, clientMsgId) =>
      send(appId, openid, TEMPLATE_PATH, {
        ...message,
        client_msg_id: message.client_msg_id ?? clientMsgId,
      }),
    sendNotice: (appId, openid, message) => send(appId, openid, NOTICE_PATH, message),
    close: () => http.close(),
  };
}
