import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendConsentPage } from './consent-page';
import { sendBadRequest } from './http-io';
import type { WechatError } from './wechat-errors';

/** The permission sets an account grants by default: 消息管理 (1, customer-service sends) and 群发与通知 (7, templates). */
export const DEFAULT_FUNC_IDS: readonly number[] = [1, 7];

/** `api_query_auth`'s errcodes (reference/wechat-platform.md §1.5). */
const CODE_INVALID: WechatError = { errcode: 61009, errmsg: 'code is invalid' };
const CODE_EXPIRED: WechatError = { errcode: 61010, errmsg: 'code is expired' };

/** A pre-auth code lives what `expires_in` says (the example's 600 s), and is good for one authorization. */
const PRE_AUTH_CODE_LIFE_S = 600;
/** The authorization code in the redirect and the `authorized` push: 10 minutes (`expires_in=600`), one use. */
const AUTH_CODE_LIFE_S = 600;

interface Code {
  readonly expiresAt: number;
  used: boolean;
}
interface AuthCode extends Code {
  readonly appId: string;
  readonly funcIds: readonly number[];
}

/**
 * One `api_query_auth` call as the Open Platform saw it: the account the code named (null when unknown)
 * and the errcode it answered (0: exchanged).
 */
export interface CodeRedemption {
  readonly appId: string | null;
  readonly errcode: number;
  readonly at: string;
}

/** The codes of the Open Platform's authorization flow: pre-auth codes, then authorization codes. */
export interface AuthCodes {
  /** `api_create_preauthcode`. */
  issuePreAuthCode(): { pre_auth_code: string; expires_in: number };
  /** Takes a pre-auth code for one authorization: false when unknown, used or expired. */
  takePreAuthCode(code: string): boolean;
  /** The code an authorization hands out (redirect and `authorized` push alike). */
  issueAuthCode(appId: string, funcIds: readonly number[]): { code: string; expiresInS: number };
  /** `api_query_auth`: the authorization the code stands for, once; 61009 unknown or used, 61010 expired. */
  redeemAuthCode(code: string): { appId: string; funcIds: readonly number[] } | WechatError;
  /** Every code `api_query_auth` was asked to redeem (by a caller it accepted), oldest first. */
  redemptions(): readonly CodeRedemption[];
}

export function createAuthCodes(now: () => number): AuthCodes {
  const preAuthCodes = new Map<string, Code>();
  const authCodes = new Map<string, AuthCode>();
  const redemptions: CodeRedemption[] = [];
  const redeem = (code: string) => {
    const found = authCodes.get(code);
    if (!found || found.used) return CODE_INVALID;
    if (found.expiresAt <= now()) return CODE_EXPIRED;
    found.used = true;
    return { appId: found.appId, funcIds: found.funcIds };
  };
  const fresh = (prefix: string) => `${prefix}@@@${randomBytes(18).toString('base64url')}`;
  return {
    issuePreAuthCode() {
      const code = fresh('preauthcode');
      preAuthCodes.set(code, { expiresAt: now() + PRE_AUTH_CODE_LIFE_S * 1000, used: false });
      return { pre_auth_code: code, expires_in: PRE_AUTH_CODE_LIFE_S };
    },
    takePreAuthCode(code) {
      const found = preAuthCodes.get(code);
      if (!found || found.used || found.expiresAt <= now()) return false;
      found.used = true;
      return true;
    },
    issueAuthCode(appId, funcIds) {
      const code = fresh('queryauthcode');
      authCodes.set(code, { appId, funcIds, expiresAt: now() + AUTH_CODE_LIFE_S * 1000, used: false });
      return { code, expiresInS: AUTH_CODE_LIFE_S };
    },
    redeemAuthCode(code) {
      const redeemed = redeem(code);
      redemptions.push({
        appId: authCodes.get(code)?.appId ?? null,
        errcode: 'errcode' in redeemed ? redeemed.errcode : 0,
        at: new Date(now()).toISOString(),
      });
      return redeemed;
    },
    redemptions: () => redemptions,
  };
}

const APP_ID = /^[A-Za-z0-9_-]{4,64}$/;

/** What the authorization page acts on. */
export interface LoginPageDeps {
  readonly componentAppId: string;
  readonly codes: AuthCodes;
  /** Authorizes the account, pushes `authorized`, and gives the authorization code. */
  authorize(appId: string, opts: { preAuthCode: string; funcIds: readonly number[] }): Promise<string>;
}

/**
 * `GET /cgi-bin/componentloginpage`: the authorization page, where an account's admin consents. The
 * simulator stands in for the admin's scan and choice with `sim_appid` (and `sim_func`, the permission
 * set ids granted, default 1,7), asked for in a form when the link has no `sim_appid`; it pushes
 * `authorized`, then redirects to `redirect_uri` with the code.
 * A wrong component, a used or expired pre-auth code, or a bad redirect_uri is answered 400.
 */
export async function handleLoginPage(
  res: ServerResponse,
  query: URLSearchParams,
  deps: LoginPageDeps,
): Promise<void> {
  const appId = query.get('sim_appid') ?? '';
  const funcIds = (query.get('sim_func') ?? DEFAULT_FUNC_IDS.join(',')).split(',').map(Number);
  let redirect: URL | null = null;
  try {
    redirect = new URL(query.get('redirect_uri') ?? '');
  } catch {
    // Answered below.
  }
  const linkProblem =
    query.get('component_appid') !== deps.componentAppId
      ? 'component_appid is not this platform'
      : redirect === null
        ? 'redirect_uri must be an absolute URL'
        : null;
  if (linkProblem === null && !query.has('sim_appid')) {
    return sendConsentPage(res, query, DEFAULT_FUNC_IDS);
  }
  const problem =
    linkProblem ??
    (!APP_ID.test(appId)
      ? 'sim_appid (the account whose admin consents) is required'
      : funcIds.some((id) => !Number.isInteger(id))
        ? 'sim_func must be comma-separated permission set ids'
        : !deps.codes.takePreAuthCode(query.get('pre_auth_code') ?? '')
          ? 'pre_auth_code is invalid, used or expired'
          : null);
  if (problem !== null || redirect === null) return sendBadRequest(res, problem ?? 'bad request');
  const code = await deps.authorize(appId, { preAuthCode: query.get('pre_auth_code')!, funcIds });
  redirect.searchParams.set('auth_code', code);
  redirect.searchParams.set('expires_in', '600');
  res.writeHead(302, { location: redirect.toString() }).end();
}
