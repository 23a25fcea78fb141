import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson } from './http-io';
import type { AuthCodes } from './component-auth';
import type { SimComponent } from './open-platform';
import type { TokenRegistry } from './tokens';
import { WECHAT_ERRORS, type WechatError } from './wechat-errors';
import { originalIdOf } from './original-id';

/** The Open Platform's own errcodes (reference/wechat-platform.md §1.3, §1.6). */
export const COMPONENT_ERRORS = {
  clientIpNotRegistered: { errcode: 61004, errmsg: 'access clientip is not registered' },
  ticketExpired: { errcode: 61005, errmsg: 'component ticket is expired' },
  ticketInvalid: { errcode: 61006, errmsg: 'component ticket is invalid' },
  invalidComponent: { errcode: 61011, errmsg: 'invalid component' },
  notAuthorized: { errcode: 61003, errmsg: 'component is not authorized by this account' },
  refreshTokenInvalid: { errcode: 61023, errmsg: 'refresh_token is invalid' },
} as const satisfies Record<string, WechatError>;

/** A ticket lives 12 hours (§0.1). */
const TICKET_LIFE_MS = 12 * 3_600_000;

/** What the component APIs judge against: the platform's state as the simulated Open Platform keeps it. */
export interface ComponentApiState {
  readonly component: SimComponent;
  readonly tokens: TokenRegistry;
  /** The tickets pushed lately, newest last, with their push times (epoch ms). */
  tickets(): readonly { readonly value: string; readonly pushedAt: number }[];
  /** The account's current refresh token, or null when it has not (or no longer) authorized the platform. */
  refreshTokenOf(appId: string): string | null;
  /** The authorization flow's codes. */
  readonly codes: AuthCodes;
  /** False while the simulated whitelist lacks the caller's IP (61004 on every component API). */
  ipRegistered(): boolean;
  readonly now: () => number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `POST /cgi-bin/component/api_component_token`: the component token, from a recent ticket. */
function componentToken(s: ComponentApiState, b: Record<string, unknown>) {
  if (str(b.component_appid) !== s.component.componentAppId) return COMPONENT_ERRORS.invalidComponent;
  if (str(b.component_appsecret) === '') return WECHAT_ERRORS.appsecretMissing;
  if (b.component_appsecret !== s.component.secret) return WECHAT_ERRORS.invalidAppsecret;
  // WeChat takes the latest ticket (and, for a while, the one before); anything else is invalid.
  const ticket = s
    .tickets()
    .slice(-2)
    .find((t) => t.value === str(b.component_verify_ticket));
  if (!ticket) return COMPONENT_ERRORS.ticketInvalid;
  if (ticket.pushedAt + TICKET_LIFE_MS <= s.now()) return COMPONENT_ERRORS.ticketExpired;
  const issued = s.tokens.issuePlatformToken(s.component.componentAppId, 'component');
  return { component_access_token: issued.access_token, expires_in: issued.expires_in };
}

/** `POST /cgi-bin/component/api_authorizer_token`: an account's token, from its refresh token. */
function authorizerToken(s: ComponentApiState, b: Record<string, unknown>, query: URLSearchParams) {
  const refused = componentCaller(s, b, query);
  if (refused) return refused;
  const appId = str(b.authorizer_appid);
  const current = s.refreshTokenOf(appId);
  if (current === null) return COMPONENT_ERRORS.notAuthorized;
  if (str(b.authorizer_refresh_token) !== current) return COMPONENT_ERRORS.refreshTokenInvalid;
  const issued = s.tokens.issuePlatformToken(appId, 'authorizer');
  // The refresh token does not rotate on refresh: the same value comes back (§1.6).
  return {
    authorizer_access_token: issued.access_token,
    expires_in: issued.expires_in,
    authorizer_refresh_token: current,
  };
}

/** The component token of a call, checked: null when good, else WeChat's error. */
function componentCaller(s: ComponentApiState, b: Record<string, unknown>, query: URLSearchParams) {
  const check = s.tokens.check(query.get('component_access_token'));
  if ('errcode' in check) return check;
  if (check.appId !== s.component.componentAppId) return WECHAT_ERRORS.invalidCredential;
  if (str(b.component_appid) !== s.component.componentAppId) return COMPONENT_ERRORS.invalidComponent;
  return null;
}

/** `POST /cgi-bin/component/api_create_preauthcode`. */
const preAuthCode = (s: ComponentApiState, b: Record<string, unknown>, query: URLSearchParams) =>
  componentCaller(s, b, query) ?? s.codes.issuePreAuthCode();

/** `POST /cgi-bin/component/api_query_auth`: the authorization a code stands for, with both tokens. */
function queryAuth(s: ComponentApiState, b: Record<string, unknown>, query: URLSearchParams) {
  const refused = componentCaller(s, b, query);
  if (refused) return refused;
  const redeemed = s.codes.redeemAuthCode(str(b.authorization_code));
  if ('errcode' in redeemed) return redeemed;
  const refreshToken = s.refreshTokenOf(redeemed.appId);
  if (refreshToken === null) return COMPONENT_ERRORS.notAuthorized;
  const issued = s.tokens.issuePlatformToken(redeemed.appId, 'authorizer');
  return {
    authorization_info: {
      authorizer_appid: redeemed.appId,
      authorizer_access_token: issued.access_token,
      expires_in: issued.expires_in,
      authorizer_refresh_token: refreshToken,
      func_info: redeemed.funcIds.map((id) => ({ funcscope_category: { id } })),
    },
  };
}

/**
 * `POST /cgi-bin/component/api_get_authorizer_info` (reference/wechat-platform.md §1.8): what the service
 * reads of it, the account's original id (`user_name`), with the authorization's permission sets.
 */
function authorizerInfo(s: ComponentApiState, b: Record<string, unknown>, query: URLSearchParams) {
  const refused = componentCaller(s, b, query);
  if (refused) return refused;
  const appId = str(b.authorizer_appid);
  const refreshToken = s.refreshTokenOf(appId);
  if (refreshToken === null) return COMPONENT_ERRORS.notAuthorized;
  return {
    authorizer_info: {
      nick_name: `simulated ${appId}`,
      service_type_info: { id: 2 },
      verify_type_info: { id: 0 },
      user_name: originalIdOf(appId),
    },
    authorization_info: { authorizer_appid: appId, authorizer_refresh_token: refreshToken },
  };
}

const ROUTES: Readonly<
  Record<string, (s: ComponentApiState, body: Record<string, unknown>, query: URLSearchParams) => unknown>
> = {
  '/cgi-bin/component/api_component_token': componentToken,
  '/cgi-bin/component/api_authorizer_token': authorizerToken,
  '/cgi-bin/component/api_create_preauthcode': preAuthCode,
  '/cgi-bin/component/api_query_auth': queryAuth,
  '/cgi-bin/component/api_get_authorizer_info': authorizerInfo,
};

/** Answers a component API call and returns true, or returns false when `path` is none of them. */
export async function handleComponentApi(
  s: ComponentApiState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<boolean> {
  const route = ROUTES[path];
  if (route === undefined) return false;
  if (req.method !== 'POST') return (sendJson(res, 200, WECHAT_ERRORS.requirePost), true);
  if (!s.ipRegistered()) return (sendJson(res, 200, COMPONENT_ERRORS.clientIpNotRegistered), true);
  let body: unknown;
  try {
    body = JSON.parse((await readBody(req)) ?? '');
  } catch {
    body = null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    sendJson(res, 200, WECHAT_ERRORS.dataFormatError);
  } else {
    sendJson(res, 200, route(s, body as Record<string, unknown>, query));
  }
  return true;
}
