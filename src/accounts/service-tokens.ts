import type { Config } from '../config';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { createTokenStore, type TokenSealer, type TokenStore } from '../wechat/tokens';
import { createPlatformTokens, type PlatformTokens } from './platform-tokens';
import type { AccountRegistry } from './registry';
import { accessTokenContext } from './sealed-kinds';
import { SecretKeyError, type SecretBox } from './secret-box';

/** Cached access tokens sealed like every other secret: one that does not open is fetched again. */
export function createTokenSealer(box: SecretBox): TokenSealer {
  return {
    seal: (appId, token) => box.seal(token, accessTokenContext(appId)),
    open(appId, sealed) {
      try {
        return box.open(sealed, accessTokenContext(appId));
      } catch (err) {
        if (err instanceof SecretKeyError) return null;
        throw err;
      }
    },
  };
}

/** A process's token store: own accounts through stable_token, platform accounts through the component. */
export function createServiceTokens(deps: {
  readonly config: Config;
  readonly pool: Pool;
  readonly box: SecretBox;
  readonly logger: Logger;
  readonly accounts: AccountRegistry;
  readonly onRefresh?: (appId: string, outcome: 'ok' | 'error') => void;
}): { tokens: TokenStore; platform: PlatformTokens | null } {
  const { config, pool, box, logger, accounts } = deps;
  const platform = config.platform
    ? createPlatformTokens({
        pool,
        box,
        platform: config.platform,
        api: { baseUrl: config.wechatApiBaseUrl, timeoutMs: config.wechatTimeoutMs },
        logger,
        isPlatformAccount: (appId) => accounts.get(appId)?.kind === 'platform',
        onRevoked: () => void accounts.refresh(),
      })
    : null;
  const tokens: TokenStore = createTokenStore({
    pool,
    sealer: createTokenSealer(box),
    baseUrl: config.wechatApiBaseUrl,
    secretOf: (appId) => accounts.get(appId)?.secret,
    platformSourceOf: platform ? (appId) => platform.sourceOf(appId, tokens) : undefined,
    refreshMarginMs: config.tokenRefreshMarginMs,
    timeoutMs: config.wechatTimeoutMs,
    logger,
    onRefresh: deps.onRefresh,
  });
  return { tokens, platform };
}
