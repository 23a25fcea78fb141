import type { PlatformConfig } from '../config';
import { withTransaction, type Pool } from '../db/pool';
import { AppError, ConflictError, ValidationError } from '../errors';
import type { Logger } from '../logger';
import { saveToken } from '../store/access-tokens';
import { upsertPlatformAccount } from '../store/platform';
import { callComponentApi, type ComponentApiOptions } from '../wechat/component-api';
import type { TokenStore } from '../wechat/tokens';
import { refreshTokenContext } from './platform-tokens';
import type { AccountRegistry } from './registry';
import type { SecretBox } from './secret-box';

/** What connecting an official account through the platform needs. */
export interface ConnectDeps {
  readonly platform: PlatformConfig;
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly logger: Logger;
  readonly accounts: AccountRegistry;
  readonly tokens: TokenStore;
  /** The key of the component token in `tokens`. */
  readonly componentKey: string;
  readonly api: ComponentApiOptions;
  /** The authorization page (componentloginpage) of WeChat, or of the simulator. */
  readonly loginPageUrl: string;
}

/** A started authorization: the link to open (from a user's click) while the pre-auth code lives. */
export interface StartedAuthorization {
  readonly preAuthCode: string;
  readonly expiresInS: number;
  readonly authorizationUrl: string;
}

/** The account an authorization connected. */
export interface ConnectedAccount {
  readonly appId: string;
  /** `created`: a new account; `updated`: an account authorizing again (enabled, new refresh token). */
  readonly outcome: 'created' | 'updated';
  /** The permission set ids it granted (func_info). */
  readonly permissions: readonly number[];
}

/**
 * Mints a pre-auth code (one per attempt: it is good for one authorization) and builds the authorization
 * link (reference/wechat-platform.md §1.4), offering official accounts only (`auth_type=1`).
 */
export async function startAuthorization(
  deps: ConnectDeps,
  redirectUri: string,
): Promise<StartedAuthorization> {
  const component = await deps.tokens.getToken(deps.componentKey);
  const json = await callComponentApi(
    deps.api,
    '/cgi-bin/component/api_create_preauthcode',
    { component_appid: deps.platform.componentAppId },
    component,
  );
  const preAuthCode = typeof json.pre_auth_code === 'string' ? json.pre_auth_code : '';
  const expiresInS = typeof json.expires_in === 'number' ? json.expires_in : 600;
  const url = new URL(deps.loginPageUrl);
  url.searchParams.set('component_appid', deps.platform.componentAppId);
  url.searchParams.set('pre_auth_code', preAuthCode);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('auth_type', '1');
  return { preAuthCode, expiresInS, authorizationUrl: url.toString() };
}

/** api_query_auth's refusals, in words an admin can act on. */
const CODE_ERRORS: Readonly<Record<number, [string, string]>> = {
  61009: ['auth_code_invalid', 'the authorization code is unknown or was used already: authorize again'],
  61010: ['auth_code_expired', 'the authorization code expired: authorize again'],
};

/**
 * Exchanges an authorization code (`api_query_auth`) and creates the account it names, or updates it when
 * it authorizes again: refresh token sealed, permissions (func_info) kept, the access token it came with
 * cached. A used, unknown or expired code is a 400 and writes nothing; an own account with that app id a 409.
 */
export async function completeAuthorization(deps: ConnectDeps, authCode: string): Promise<ConnectedAccount> {
  const component = await deps.tokens.getToken(deps.componentKey);
  let json: Record<string, unknown>;
  try {
    json = await callComponentApi(
      deps.api,
      '/cgi-bin/component/api_query_auth',
      { component_appid: deps.platform.componentAppId, authorization_code: authCode },
      component,
    );
  } catch (err) {
    const errcode = ((err as AppError).details as { errcode?: number } | undefined)?.errcode;
    const known = errcode === undefined ? undefined : CODE_ERRORS[errcode];
    if (known) throw new AppError(known[0], known[1], { httpStatus: 400, details: { errcode } });
    throw err;
  }
  const info = parseAuthorizationInfo(json.authorization_info);
  const outcome = await withTransaction(deps.pool, async (client) => {
    const done = await upsertPlatformAccount(client, {
      appId: info.appId,
      refreshTokenSealed: deps.box.seal(info.refreshToken, refreshTokenContext(info.appId)),
      funcIds: info.permissions,
    });
    if (done === null) {
      throw new ConflictError('account_exists', `${info.appId} is an own account here; delete it first`);
    }
    await saveToken(client, info.appId, info.accessToken, info.expiresInS * 1000);
    return done;
  });
  deps.logger.info({ appId: info.appId, outcome, permissions: info.permissions }, 'account connected');
  await deps.accounts.refresh();
  return { appId: info.appId, outcome, permissions: info.permissions };
}

function parseAuthorizationInfo(value: unknown) {
  const i = (value ?? {}) as Record<string, unknown>;
  const funcs = Array.isArray(i.func_info)
    ? (i.func_info as { funcscope_category?: { id?: unknown } }[])
    : [];
  const info = {
    appId: i.authorizer_appid,
    accessToken: i.authorizer_access_token,
    expiresInS: i.expires_in,
    refreshToken: i.authorizer_refresh_token,
    permissions: funcs
      .map((f) => f.funcscope_category?.id)
      .filter((id): id is number => typeof id === 'number'),
  };
  if (
    typeof info.appId !== 'string' ||
    typeof info.accessToken !== 'string' ||
    typeof info.expiresInS !== 'number' ||
    typeof info.refreshToken !== 'string'
  ) {
    // WeChat leaves the tokens out when the account lacks API permissions (§1.5).
    throw new ValidationError('the authorization gave no API access: the account must grant the permissions');
  }
  return {
    ...info,
    appId: info.appId,
    accessToken: info.accessToken,
    expiresInS: info.expiresInS,
    refreshToken: info.refreshToken,
  };
}
