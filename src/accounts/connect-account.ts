import type { PlatformConfig } from '../config';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
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
