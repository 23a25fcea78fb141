import { type Dispatcher, request } from 'undici';
import { AppError } from '../errors';
import { describeRequestError, interpretAnswer } from './http-answer';

/** Where and how the component APIs are called. */
export interface ComponentApiOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly dispatcher?: Dispatcher;
}

/**
 * Errcodes of the component token APIs that no retry heals (reference/wechat-platform.md §1.3, §1.6):
 * the IP not whitelisted (61004), an unknown component (61011), a missing or wrong AppSecret (41004,
 * 40125), the authorization revoked or its refresh token stale (61003, 61023). A ticket that expired or
 * is not the latest (61005, 61006) heals with the next push, within 10 minutes.
 */
const LASTING_ERRCODES = new Set([61004, 61011, 41004, 40125, 61003, 61023]);

/** The platform's authorization of the account is gone: `61023` refresh_token is invalid, `61003` not authorized. */
export const isRevoked = (errcode: number | null): boolean => errcode === 61023 || errcode === 61003;

/**
 * POSTs `body` as JSON to a component API (`/cgi-bin/component/…`) and returns the answer's fields, or
 * throws AppError `token_error` with WeChat's errcode in `details` (retryable unless it is lasting). The
 * component access token goes in the query, never in a message or a log.
 */
export async function callComponentApi(
  opts: ComponentApiOptions,
  path: string,
  body: Record<string, string>,
  componentAccessToken?: string,
): Promise<Record<string, unknown>> {
  const query = componentAccessToken
    ? `?component_access_token=${encodeURIComponent(componentAccessToken)}`
    : '';
  let status: number;
  let text: string;
  try {
    const res = await request(`${opts.baseUrl}${path}${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      dispatcher: opts.dispatcher,
    });
    [status, text] = [res.statusCode, await res.body.text()];
  } catch (err) {
    throw componentError(path, null, describeRequestError(err), err);
  }
  const answer = interpretAnswer(status, text, true);
  if (answer.errcode !== 0 || !answer.json) throw componentError(path, answer.errcode, answer.errmsg);
  return answer.json;
}

function componentError(path: string, errcode: number | null, errmsg: string, cause?: unknown): AppError {
  const retryable = errcode === null || !LASTING_ERRCODES.has(errcode);
  return new AppError('token_error', `${path} failed: ${errmsg}`, {
    httpStatus: retryable ? 503 : 500,
    retryable,
    details: { errcode, errmsg },
    cause,
  });
}
