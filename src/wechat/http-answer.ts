/** A WeChat answer reduced to what the service uses; errcode null = no usable answer. */
export interface WechatAnswer {
  readonly errcode: number | null;
  readonly errmsg: string;
  /** The parsed JSON when there was one (token answers carry their fields here). */
  readonly json?: Record<string, unknown>;
}

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
    return { errcode: body.errcode, errmsg: typeof body.errmsg === 'string' ? body.errmsg : '', json: body };
  }
  if (okWithoutErrcode && status < 300) return { errcode: 0, errmsg: 'ok', json: body };
  return { errcode: null, errmsg: `http ${status}: the answer has no errcode` };
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** Words a failed request (undici or socket error) for `errmsg`; never includes the URL (it holds the token). */
export function describeRequestError(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return `timeout (${code})`;
  return `network error (${typeof code === 'string' ? code : err instanceof Error ? err.name : 'unknown'})`;
}
