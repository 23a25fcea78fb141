import { type Dispatcher, request } from 'undici';

/** A WeChat answer reduced to what the service uses; errcode null = no usable answer. */
export interface WechatAnswer {
  readonly errcode: number | null;
  readonly errmsg: string;
  /** The parsed JSON when there was one (token answers carry their fields here). */
  readonly json?: Record<string, unknown>;
  /** Set when no answer came back although the request may have reached WeChat (see REQUEST_ERRORS). */
  readonly answerLost?: true;
  /**
   * WeChat's `msgid`, read as digits from the answer's text: a template msgid may be above 2^53, where a
   * JSON number loses its last digits and a delivery report naming it would match nothing.
   */
  readonly msgid?: string;
}

const MSGID = /"msgid"\s*:\s*"?(\d{1,20})\b/;

/**
 * Reads an HTTP answer of the WeChat API. WeChat answers errors with HTTP 200 and an errcode; a 5xx, a
 * body that is not JSON, or JSON without errcode is "no usable answer" (null), as is any network error.
 * Successful token answers have no errcode: `okWithoutErrcode` accepts them as errcode 0.
 */
export function interpretAnswer(status: number, text: string, okWithoutErrcode = false): WechatAnswer {
  if (status >= 500) return { errcode: null, errmsg: `http ${status}` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { errcode: null, errmsg: `http ${status}: the answer is not JSON` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { errcode: null, errmsg: `http ${status}: the answer is not a JSON object` };
  }
  const body = json as Record<string, unknown>;
  if (typeof body.errcode === 'number') {
    const errmsg = typeof body.errmsg === 'string' ? body.errmsg : '';
    const msgid = body.msgid === undefined ? undefined : MSGID.exec(text)?.[1];
    return { errcode: body.errcode, errmsg, json: body, ...(msgid === undefined ? {} : { msgid }) };
  }
  if (okWithoutErrcode && status < 300) return { errcode: 0, errmsg: 'ok', json: body };
  return { errcode: null, errmsg: `http ${status}: the answer has no errcode` };
}

/**
 * Whether a request that failed without an answer may have reached WeChat: `not_sent` when it provably
 * did not (retrying cannot duplicate), `maybe_sent` when WeChat may have acted on it and only its answer
 * was lost (retrying a customer-service message may deliver it twice).
 */
export type RequestFate = 'not_sent' | 'maybe_sent';

/**
 * The error codes undici (and the socket under it) gives a failed request, and what each says about
 * whether the request reached WeChat. A code missing here is `maybe_sent`: what we cannot place we must
 * not resend blindly.
 */
const REQUEST_ERRORS: ReadonlyMap<string, { readonly fate: RequestFate; readonly timeout: boolean }> =
  new Map([
    // No connection was ever made: the request was never written.
    ['UND_ERR_CONNECT_TIMEOUT', { fate: 'not_sent', timeout: true }],
    ['ECONNREFUSED', { fate: 'not_sent', timeout: false }],
    ['EHOSTUNREACH', { fate: 'not_sent', timeout: false }],
    ['ENETUNREACH', { fate: 'not_sent', timeout: false }],
    // DNS: the name did not resolve, so nothing was sent.
    ['ENOTFOUND', { fate: 'not_sent', timeout: false }],
    ['EAI_AGAIN', { fate: 'not_sent', timeout: false }],
    // The pool was closed (shutdown) before the request was dispatched.
    ['UND_ERR_CLOSED', { fate: 'not_sent', timeout: false }],
    // The request was written and we stopped waiting for the answer's headers, or for its body.
    ['UND_ERR_HEADERS_TIMEOUT', { fate: 'maybe_sent', timeout: true }],
    ['UND_ERR_BODY_TIMEOUT', { fate: 'maybe_sent', timeout: true }],
    // The connection broke (reset, closed by WeChat, pool destroyed) while the request was in flight: the
    // socket counters are per connection, not per request, so "before the write" cannot be told apart.
    ['UND_ERR_SOCKET', { fate: 'maybe_sent', timeout: false }],
    ['ECONNRESET', { fate: 'maybe_sent', timeout: false }],
    ['EPIPE', { fate: 'maybe_sent', timeout: false }],
    ['UND_ERR_DESTROYED', { fate: 'maybe_sent', timeout: false }],
  ]);

const UNPLACED = { fate: 'maybe_sent', timeout: false } as const;

/** A failed request (undici or socket error) as the client records it. */
export interface RequestFailure {
  readonly fate: RequestFate;
  /** For `errmsg`; never includes the URL (it holds the token). */
  readonly errmsg: string;
}

/** Places a failed request (undici or socket error) in REQUEST_ERRORS and words it for `errmsg`. */
export function classifyRequestError(err: unknown): RequestFailure {
  const code = (err as { code?: unknown } | null)?.code;
  const known = typeof code === 'string' ? REQUEST_ERRORS.get(code) : undefined;
  const { fate, timeout } = known ?? UNPLACED;
  const name = typeof code === 'string' ? code : err instanceof Error ? err.name : 'unknown';
  return { fate, errmsg: timeout ? `timeout (${name})` : `network error (${name})` };
}

/** Words a failed request (undici or socket error) for `errmsg`; never includes the URL (it holds the token). */
export function describeRequestError(err: unknown): string {
  return classifyRequestError(err).errmsg;
}

/**
 * `POST /cgi-bin/stable_token` in normal mode (`force_refresh: false`: the current token stays valid):
 * the raw HTTP answer. Rejects with undici's error when no answer came.
 */
export async function postStableToken(
  opts: { baseUrl: string; timeoutMs: number; dispatcher?: Dispatcher },
  appId: string,
  secret: string,
): Promise<{ status: number; text: string }> {
  const res = await request(`${opts.baseUrl}/cgi-bin/stable_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credential', appid: appId, secret, force_refresh: false }),
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    dispatcher: opts.dispatcher,
  });
  return { status: res.statusCode, text: await res.body.text() };
}
