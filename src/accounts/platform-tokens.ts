import type { PlatformConfig } from '../config';
import { withTransaction, type Pool } from '../db/pool';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { findComponentTicket, findRefreshToken, saveRefreshToken } from '../store/platform';
import { callComponentApi, type ComponentApiOptions, isRevoked } from '../wechat/component-api';
import type { TokenFetch, TokenStore } from '../wechat/tokens';
import type { SecretBox } from './secret-box';
import { revokeAuthorization, ticketContext } from './take-platform-event';

/** What the platform's token chain needs. */
export interface PlatformTokenDeps {
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly platform: PlatformConfig;
  readonly api: ComponentApiOptions;
  readonly logger: Logger;
  /** Whether `appId` is a platform account (its tokens come through the component). */
  readonly isPlatformAccount: (appId: string) => boolean;
  /** Told when an account turned out unauthorized (61023 / 61003), after it was marked so. */
  readonly onRevoked?: (appId: string) => void;
}

/** The platform's token sources, for the token store's `platformSourceOf`. */
export interface PlatformTokens {
  /** The key under which the component_access_token is cached beside the accounts' tokens. */
  readonly componentKey: string;
  /** How to fetch a fresh token for `key`, or null when it is not the platform's. */
  sourceOf(key: string, store: TokenStore): (() => Promise<TokenFetch>) | null;
}

/** Where a sealed authorizer_refresh_token belongs. */
export const refreshTokenContext = (appId: string) => `authorizer ${appId} refresh token`;

function tokenOf(json: Record<string, unknown>, field: string, sentAt: number) {
  const token = json[field];
  const expiresIn = json.expires_in;
  if (typeof token !== 'string' || typeof expiresIn !== 'number') {
    throw new AppError('token_error', `answer without ${field}`, { httpStatus: 503, retryable: true });
  }
  // expires_in counts from WeChat's answer; counting from our request errs on the safe side.
  return { token, lifeMs: expiresIn * 1000 - (Date.now() - sentAt) };
}

/**
 * The third-party platform's token chain (reference/wechat-platform.md §1.3, §1.6): the
 * component_access_token from the last stored component_verify_ticket, and each platform account's
 * authorizer_access_token from its sealed authorizer_refresh_token (stored again when WeChat returns
 * another). Both are cached and refreshed by the token store, one refresher at a time under its lock;
 * there is no stable_token for third parties. A 61023 / 61003 marks the account unauthorized (disabled,
 * its open messages cancelled with one ledger row).
 */
export function createPlatformTokens(deps: PlatformTokenDeps): PlatformTokens {
  const { platform, api, box, pool, logger } = deps;
  const componentKey = `component:${platform.componentAppId}`;

  const componentFetch: TokenFetch = async () => {
    const stored = await findComponentTicket(pool, platform.componentAppId);
    if (!stored) {
      throw new AppError(
        'token_error',
        'no component_verify_ticket received yet (WeChat pushes one every 10 minutes)',
        {
          httpStatus: 503,
          retryable: true,
          details: { errcode: null, errmsg: 'no ticket' },
        },
      );
    }
    const sentAt = Date.now();
    const json = await callComponentApi(api, '/cgi-bin/component/api_component_token', {
      component_appid: platform.componentAppId,
      component_appsecret: platform.componentSecret,
      component_verify_ticket: box.open(stored.ticketSealed, ticketContext(platform.componentAppId)),
    });
    return tokenOf(json, 'component_access_token', sentAt);
  };

  const authorizerFetch =
    (appId: string, componentToken: string): TokenFetch =>
    async () => {
      const sealed = await findRefreshToken(pool, appId);
      if (sealed === null) {
        throw new AppError(
          'token_error',
          `account ${appId} has no authorizer_refresh_token: authorize again`,
          {
            httpStatus: 500,
            details: { errcode: null, errmsg: 'no refresh token' },
          },
        );
      }
      const refreshToken = box.open(sealed, refreshTokenContext(appId));
      const sentAt = Date.now();
      let json: Record<string, unknown>;
      try {
        json = await callComponentApi(
          api,
          '/cgi-bin/component/api_authorizer_token',
          {
            component_appid: platform.componentAppId,
            authorizer_appid: appId,
            authorizer_refresh_token: refreshToken,
          },
          componentToken,
        );
      } catch (err) {
        const errcode =
          ((err as AppError).details as { errcode?: number | null } | undefined)?.errcode ?? null;
        if (isRevoked(errcode)) {
          const cancelled = await withTransaction(pool, (client) =>
            revokeAuthorization(client, appId, 'token_refused'),
          );
          logger.warn({ appId, errcode, cancelled }, 'the platform is no longer authorized by this account');
          deps.onRevoked?.(appId);
        }
        throw err;
      }
      const returned = json.authorizer_refresh_token;
      if (typeof returned === 'string' && returned !== '' && returned !== refreshToken) {
        await saveRefreshToken(pool, appId, box.seal(returned, refreshTokenContext(appId)));
      }
      return tokenOf(json, 'authorizer_access_token', sentAt);
    };

  /** Logs a failed fetch by what WeChat answered (never a token or the request). */
  const logged =
    (key: string, fetch: TokenFetch): TokenFetch =>
    async () => {
      try {
        return await fetch();
      } catch (err) {
        const { errcode, errmsg } = ((err as AppError).details ?? {}) as {
          errcode?: unknown;
          errmsg?: unknown;
        };
        logger.warn({ appId: key, errcode, errmsg }, 'platform token request failed');
        throw err;
      }
    };

  return {
    componentKey,
    sourceOf(key, store) {
      if (key === componentKey) return async () => logged(key, componentFetch);
      if (!deps.isPlatformAccount(key)) return null;
      // The component token is fetched before the account's refresh lock is taken, never inside it.
      return async () => logged(key, authorizerFetch(key, await store.getToken(componentKey)));
    },
  };
}
