import { ConflictError, UnavailableError } from '../errors';
import { isTokenErrcode } from './errcodes';
import type { WechatAnswer } from './http-answer';
import type { TokenStore } from './tokens';

/**
 * Calls a WeChat API with the account's access token; a token WeChat rejects is expired and the call made
 * once more with a fresh one (as the send client does). The one retry of the calls made for the admin
 * page: the template list, QR codes, image uploads.
 */
export async function callWithToken(
  tokens: TokenStore,
  appId: string,
  call: (token: string) => Promise<WechatAnswer>,
): Promise<WechatAnswer> {
  const token = await tokens.getToken(appId);
  const answer = await call(token);
  if (!isTokenErrcode(answer.errcode)) return answer;
  await tokens.expireToken(appId, token);
  return call(await tokens.getToken(appId));
}

/**
 * The JSON of an answer WeChat gave with errcode 0; otherwise a 503 `wechat_unavailable` (no usable answer)
 * or a 409 `wechat_refused` naming `what` and WeChat's errcode (which the details carry).
 */
export function acceptedJson(answer: WechatAnswer, what: string): Record<string, unknown> {
  if (answer.errcode === null) {
    throw new UnavailableError('wechat_unavailable', `no answer from WeChat: ${answer.errmsg}`);
  }
  if (answer.errcode !== 0) {
    throw new ConflictError(
      'wechat_refused',
      `WeChat refused ${what} (errcode ${answer.errcode}: ${answer.errmsg})`,
      { errcode: answer.errcode },
    );
  }
  return answer.json ?? {};
}
