/** What the service does about a send's answer. */
export type ErrcodeAction =
  | 'ok'
  | 'retry'
  | 'refresh_token'
  | 'window_closed'
  | 'no_subscription'
  | 'stop_account'
  | 'fail'
  | 'answer_lost';

/** The verdict on one errcode: the action, a stable reason for the row's `status_reason`, a floor on the retry delay. */
export interface ErrcodeVerdict {
  readonly action: ErrcodeAction;
  readonly reason: string;
  /** For `retry`: wait at least this long before the next attempt. */
  readonly minRetryDelayMs?: number;
}

const verdict = (action: ErrcodeAction, reason: string, minRetryDelayMs?: number): ErrcodeVerdict =>
  Object.freeze(minRetryDelayMs === undefined ? { action, reason } : { action, reason, minRetryDelayMs });
const fail = (errcode: number): ErrcodeVerdict => verdict('fail', `errcode:${errcode}`);

/** 43117 (too frequent for this openid): the least wait before the same follower is tried again, 10 minutes. */
export const TOO_FREQUENT_RETRY_MS = 10 * 60_000;

/**
 * Every WeChat errcode the service knows, with WeChat's meaning and what we do about it
 * (reference/wechat.md §2.4, §3, §4). A code missing here is a permanent failure: retrying something
 * we do not understand risks sending the same message twice or hammering a quota.
 */
const ERRCODES: ReadonlyMap<number, ErrcodeVerdict> = new Map([
  [0, verdict('ok', 'ok')],
  // system busy ("请开发者稍候再试"): the only code WeChat asks us to retry.
  [-1, verdict('retry', 'errcode:-1')],
  // Token invalid / not latest, malformed, expired: compare-and-expire the token and retry once. A retry
  // that fails the same way is worth another try later (a token race between processes), not a failure.
  [40001, verdict('refresh_token', 'errcode:40001')],
  [40014, verdict('refresh_token', 'errcode:40014')],
  [42001, verdict('refresh_token', 'errcode:42001')],
  // access_token missing: a bug in the client, retrying sends the same request again.
  [41001, fail(41001)],
  // invalid grant_type / appid / appsecret, IP not whitelisted, AppSecret frozen: configuration errors
  // of the token endpoint; they reach sends only through a bug and never heal by retrying.
  [40002, fail(40002)],
  [40013, fail(40013)],
  [40125, fail(40125)],
  [40164, fail(40164)],
  [61004, fail(61004)],
  [40243, fail(40243)],
  // invalid openid (wrong account's openid, not a follower): permanent for this follower.
  [40003, fail(40003)],
  // invalid media_id (e.g. a temporary medium past its 3 days): the content must be fixed.
  [40007, fail(40007)],
  // require subscribe (template): permanent until the user follows again.
  [43004, fail(43004)],
  // the recipient is on the account's blacklist.
  [43019, fail(43019)],
  // content size out of limit; news with more than one article; data format error; template argument
  // invalid; invalid type: the payload is wrong and will be wrong again.
  [45002, fail(45002)],
  [45008, fail(45008)],
  [47001, fail(47001)],
  [47003, fail(47003)],
  [45162, fail(45162)],
  // daily quota of the API reached: stop sending for the account until the quota resets.
  [45009, verdict('stop_account', 'errcode:45009')],
  // minute quota reached: WeChat says to slow down and retry in the next minute.
  [45011, verdict('retry', 'errcode:45011', 60_000)],
  // outside the contact window (or the user unfollowed) / window count used up: not retryable now, the
  // next user interaction opens a new window (reference/wechat.md §2). One reason for both, as for the claim's own
  // check (a used-up count is a closed window); the attempt keeps the errcode.
  [45015, verdict('window_closed', 'window_closed')],
  [45047, verdict('window_closed', 'window_closed')],
  // user refuses the message (reference/wechat-platform.md §2.2): no acceptance of the notice's template
  // left, or the follower cancelled it. Not retryable until they accept again; also seen on template sends.
  [43101, verdict('no_subscription', 'no_subscription')],
  // Template errcodes seen in the field since 2023 (reference/wechat.md, update late 2026; community, not
  // in the official list). Each reason is counted by name in a step's results (docs/guarantees.md#wechat-errcodes-and-what-the-service-does).
  // template_id banned by WeChat: a ban does not lift by waiting, so the message fails; the account's later
  // sends of that template get the same answer and fail the same way, each counted (no template pause).
  [43116, verdict('fail', 'template_banned')],
  // too frequent for this openid, "try later": the same follower, later. No delay is documented; the
  // minute quota's 60 s is too short for a per-follower limit, so at least TOO_FREQUENT_RETRY_MS.
  [43117, verdict('retry', 'too_frequent', TOO_FREQUENT_RETRY_MS)],
  // blocked for illegal content: the same content is blocked again.
  [40249, verdict('fail', 'content_blocked')],
  // api unauthorized: the account may not use this API or message type — e.g. `mpnewsarticle` on an
  // account that lost the publish APIs (personal or unverified, since 2025-07). Only that kind of message
  // fails; the account keeps sending the others, so it is not paused.
  [48001, verdict('fail', 'not_authorized')],
  // the follower refuses messages; api forbidden for irregularities; user limited.
  [48002, fail(48002)],
  [48004, fail(48004)],
  [50002, fail(50002)],
]);

// No usable answer, but nothing was sent twice by retrying: the request never reached WeChat (connection
// refused, connect timeout, DNS), or WeChat answered without an errcode (HTTP 5xx, not JSON).
const NO_ANSWER = verdict('retry', 'no_answer');

/**
 * The request may have reached WeChat but its answer was lost (headers / body timeout, connection broken
 * mid-request): WeChat may have sent the message. Whether to send again is the worker's decision (by
 * channel and the account's at-least-once choice), not a property of the answer.
 */
export const ANSWER_LOST: ErrcodeVerdict = verdict('answer_lost', 'answer_lost');

/** Classifies a send's errcode; null stands for "no usable answer" from a request that never reached WeChat. */
export function classifyErrcode(errcode: number | null): ErrcodeVerdict {
  if (errcode === null) return NO_ANSWER;
  return ERRCODES.get(errcode) ?? fail(errcode);
}

/** Classifies a send: a lost answer (`answerLost`) first, then the errcode table. */
export function classifySend(result: { errcode: number | null; answerLost?: true }): ErrcodeVerdict {
  return result.answerLost && result.errcode === null ? ANSWER_LOST : classifyErrcode(result.errcode);
}

/** The errcodes that mean "this access token is no good": the client refreshes it and retries once. */
export function isTokenErrcode(errcode: number | null): boolean {
  return classifyErrcode(errcode).action === 'refresh_token';
}
