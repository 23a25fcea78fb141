import { createHash, randomBytes } from 'node:crypto';
import type { PlatformConfig } from '../config';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { saveAuthorizationState, takeAuthorizationState } from '../store/authorization-states';
import { callComponentApi, type ComponentApiOptions } from '../wechat/component-api';
import type { TokenStore } from '../wechat/tokens';
import type { AccountRegistry } from './registry';
import type { SecretBox } from './secret-box';

/** What connecting an official account through the platform needs. */
export interface ConnectDeps {
  readonly platform: PlatformConfig;
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly logger: Logger;
  readonly metrics: Metrics;
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

/**
 * How long a link's state is good after the link is made: the pre-auth code's life (the admin consents
 * within it), then an hour for the browser to come back with the code (a code lives 10 minutes to an hour).
 */
const STATE_AFTER_CODE_S = 3600;

/** The SHA-256 (hex) a state or a code is known by. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Mints a pre-auth code (one per attempt: it is good for one authorization) and builds the authorization
 * link (reference/wechat-platform.md §1.4), offering official accounts only (`auth_type=1`). The link's
 * `redirect_uri` carries a fresh unguessable `state` (WeChat passes the redirect_uri's query through), kept
 * by its SHA-256 only: the callback asks WeChat nothing for a code that does not come back with it.
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
  const state = randomBytes(24).toString('base64url');
  await saveAuthorizationState(deps.pool, sha256Hex(state), expiresInS + STATE_AFTER_CODE_S);
  const redirect = new URL(redirectUri);
  redirect.searchParams.set('state', state);
  const url = new URL(deps.loginPageUrl);
  url.searchParams.set('component_appid', deps.platform.componentAppId);
  url.searchParams.set('pre_auth_code', preAuthCode);
  url.searchParams.set('redirect_uri', redirect.toString());
  url.searchParams.set('auth_type', '1');
  return { preAuthCode, expiresInS, authorizationUrl: url.toString() };
}

/**
 * Whether the callback's `state` is one of this service's links, alive, and unused or used by this same
 * code (a reload): it is then bound to the code. Asks WeChat nothing.
 */
export async function takeCallbackState(
  deps: ConnectDeps,
  state: string,
  authCode: string,
): Promise<boolean> {
  return takeAuthorizationState(deps.pool, sha256Hex(state), sha256Hex(authCode));
}
