import type { Config } from '../config';
import type { Pool } from '../db/pool';
import type { Logger } from '../logger';
import { createTokenStore, type TokenStore } from '../wechat/tokens';
import { createPlatformTokens, type PlatformTokens } from './platform-tokens';
import type { AccountRegistry } from './registry';
import type { SecretBox } from './secret-box';

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
