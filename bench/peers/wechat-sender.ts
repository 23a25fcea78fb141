import { Pool as HttpPool } from 'undici';

/** Sends text custom messages to the WeChat simulator, with the account's access token cached in-process. */
export interface WechatSender {
  /** Resolves once WeChat answered errcode 0; rejects on any other errcode or HTTP failure. */
  sendText(openid: string, content: string): Promise<void>;
  /** Closes the keep-alive connections once in-flight requests are done. */
  close(): Promise<void>;
}

interface WechatAnswer {
  errcode?: number;
  errmsg?: string;
  access_token?: string;
  expires_in?: number;
}

interface CachedToken {
  readonly token: string;
  readonly refreshAt: number;
}

/** Token invalid, not the latest, expired: drop the cached token so the retry fetches a fresh one. */
const TOKEN_ERRCODES = new Set([40001, 40014, 42001]);
/** A token is refreshed this long before WeChat says it expires. */
const REFRESH_MARGIN_MS = 300_000;
const JSON_HEADERS = { 'content-type': 'application/json' };
const TIMEOUT_MS = 10_000;

/**
 * Creates the sender: one keep-alive undici pool of `connections` to the simulator's origin (the same
 * kind of client wechat-drip's worker uses), and a per-process token from `/cgi-bin/stable_token`,
 * fetched once and shared by concurrent sends. It never retries: the queue's retry does.
 */
export function createWechatSender(opts: {
  simUrl: string;
  appId: string;
  secret: string;
  connections: number;
}): WechatSender {
  const http = new HttpPool(new URL(opts.simUrl).origin, {
    connections: opts.connections,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    connectTimeout: TIMEOUT_MS,
  });
  let cached: Promise<CachedToken> | null = null;

  async function post(path: string, body: unknown): Promise<WechatAnswer> {
    const res = await http.request({
      method: 'POST',
      path,
      headers: JSON_HEADERS,
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    // The path's query carries the token: never put it in an error.
    const where = path.split('?')[0];
    if (res.statusCode !== 200) throw new Error(`POST ${where} answered HTTP ${res.statusCode}`);
    try {
      return JSON.parse(text) as WechatAnswer;
    } catch {
      throw new Error(`POST ${where} answered something that is not JSON: ${text.slice(0, 100)}`);
    }
  }

  async function fetchToken(): Promise<CachedToken> {
    const answer = await post('/cgi-bin/stable_token', {
      grant_type: 'client_credential',
      appid: opts.appId,
      secret: opts.secret,
    });
    if (!answer.access_token || !answer.expires_in)
      throw new Error(`stable_token refused: errcode ${answer.errcode} ${answer.errmsg}`);
    return {
      token: answer.access_token,
      refreshAt: Date.now() + answer.expires_in * 1000 - REFRESH_MARGIN_MS,
    };
  }

  /** The cached token's promise, shared by every concurrent caller; fetched when there is none. */
  function tokenPromise(): Promise<CachedToken> {
    if (!cached) {
      const fetching = fetchToken();
      fetching.catch(() => drop(fetching));
      cached = fetching;
    }
    return cached;
  }

  /** Forgets `holder` if it is still the cached token (another caller may have replaced it already). */
  function drop(holder: Promise<CachedToken>): void {
    if (cached === holder) cached = null;
  }

  return {
    async sendText(openid, content) {
      let holder = tokenPromise();
      if ((await holder).refreshAt <= Date.now()) {
        drop(holder);
        holder = tokenPromise();
      }
      const { token } = await holder;
      const answer = await post(`/cgi-bin/message/custom/send?access_token=${encodeURIComponent(token)}`, {
        touser: openid,
        msgtype: 'text',
        text: { content },
      });
      if (answer.errcode === 0) return;
      if (answer.errcode !== undefined && TOKEN_ERRCODES.has(answer.errcode)) drop(holder);
      throw new Error(`custom/send answered errcode ${answer.errcode} ${answer.errmsg}`);
    },
    close: () => http.close(),
  };
}
