/** A WeChat error answer: HTTP 200 with this JSON body. */
export interface WechatError {
  readonly errcode: number;
  readonly errmsg: string;
}

const err = (errcode: number, errmsg: string): WechatError => Object.freeze({ errcode, errmsg });

/**
 * The answers the simulator gives, with WeChat's errmsg texts. Kept apart from src/wechat/errcodes.ts on
 * purpose: the simulator states what WeChat says, the service decides what to do about it.
 */
export const WECHAT_ERRORS = Object.freeze({
  systemError: err(-1, 'system error'),
  invalidCredential: err(40001, 'invalid credential, access_token is invalid or not latest'),
  invalidGrantType: err(40002, 'invalid grant_type'),
  invalidOpenid: err(40003, 'invalid openid'),
  invalidMessageType: err(40008, 'invalid message type'),
  invalidAppid: err(40013, 'invalid appid'),
  invalidTemplateId: err(40037, 'invalid template_id'),
  invalidAppsecret: err(40125, 'invalid appsecret'),
  accessTokenMissing: err(41001, 'access_token missing'),
  appidMissing: err(41002, 'appid missing'),
  appsecretMissing: err(41004, 'appsecret missing'),
  accessTokenExpired: err(42001, 'access_token expired'),
  requireGet: err(43001, 'require GET method'),
  requirePost: err(43002, 'require POST method'),
  requireSubscribe: err(43004, 'require subscribe'),
  userRefused: err(43101, 'user refuse to accept the msg'),
  // The template errcodes seen in the field (reference/wechat.md, update late 2026): community reports,
  // not in WeChat's official list, so the texts say what the reports say rather than quote one.
  templateBanned: err(43116, 'this template_id has been banned'),
  tooFrequent: err(43117, 'too frequent for this openid, try later'),
  contentBlocked: err(40249, 'content blocked for illegal content'),
  apiUnauthorized: err(48001, 'api unauthorized'),
  emptyContent: err(44004, 'empty content'),
  contentTooLong: err(45002, 'content size out of limit'),
  tooManyArticles: err(45008, 'article size out of limit'),
  outOfTimeLimit: err(45015, 'response out of time limit or subscription is canceled'),
  outOfResponseCount: err(45047, 'out of response count limit'),
  dataFormatError: err(47001, 'data format error'),
  argumentInvalid: err(47003, 'argument invalid!'),
});

const BY_CODE = new Map<number, WechatError>(Object.values(WECHAT_ERRORS).map((e) => [e.errcode, e]));
const EXTRA_ERRMSGS: Record<number, string> = {
  40014: 'invalid access_token',
  45009: 'reach max api daily quota limit',
  45011: 'api minute-quota reach limit must slower retry next minute',
};

/** The answer for an injected errcode: WeChat's own errmsg when the simulator knows it. */
export function wechatError(errcode: number): WechatError {
  return BY_CODE.get(errcode) ?? err(errcode, EXTRA_ERRMSGS[errcode] ?? 'injected error');
}
