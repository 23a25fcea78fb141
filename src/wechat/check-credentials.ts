import type { AccountCheck } from '../contract';
import { describeRequestError, interpretAnswer, postStableToken } from './http-answer';

/**
 * What a token endpoint errcode means for the person configuring the account, and what to do
 * (reference/wechat.md §3, §4). Codes not listed are reported with WeChat's own errmsg.
 */
const MEANING: Readonly<Record<number, string>> = {
  0: 'WeChat issued an access token: the AppSecret and this server’s IP address are accepted.',
  40001:
    'WeChat refused the AppSecret (40001): copy it again from the console (设置与开发 → 基本配置) and save it here.',
  40125:
    'WeChat refused the AppSecret (40125, invalid appsecret): copy it again from the console and save it here.',
  40164:
    'WeChat refused this server’s IP address (40164): add it to the IP whitelist (IP白名单) in the console.',
  61004:
    'WeChat refused this server’s IP address (61004): add it to the IP whitelist (IP白名单) in the console.',
  40013: 'WeChat does not know this app id (40013, invalid appid): check the AppID in the console.',
  40243: 'WeChat says the AppSecret is frozen (40243): unfreeze or reset it in the console.',
  [-1]: 'WeChat is busy (-1): try the check again in a moment.',
};

/**
 * Asks WeChat for an access token with the account's AppSecret (`stable_token`, normal mode: the
 * current token stays valid) and reports the answer in words. Never throws; never puts the secret or the
 * token in the answer.
 */
export async function checkCredentials(
  opts: { baseUrl: string; timeoutMs: number },
  appId: string,
  secret: string,
): Promise<AccountCheck> {
  const checkedAt = () => new Date().toISOString();
  let answered: { status: number; text: string };
  try {
    answered = await postStableToken(opts, appId, secret);
  } catch (err) {
    const why = describeRequestError(err);
    return {
      ok: false,
      errcode: null,
      message: `No answer from WeChat (${why}): check this server’s network.`,
      checkedAt: checkedAt(),
    };
  }
  const answer = interpretAnswer(answered.status, answered.text, true);
  if (answer.errcode === null) {
    return {
      ok: false,
      errcode: null,
      message: `WeChat gave no usable answer (${answer.errmsg}).`,
      checkedAt: checkedAt(),
    };
  }
  const ok = answer.errcode === 0 && typeof answer.json?.access_token === 'string';
  const message =
    MEANING[answer.errcode] ?? `WeChat answered errcode ${answer.errcode}: ${answer.errmsg.slice(0, 200)}`;
  return { ok, errcode: answer.errcode, message, checkedAt: checkedAt() };
}
