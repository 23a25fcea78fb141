import type { RateLimiter } from '../wechat/rate-limit';
import type { AccountRegistry } from './registry';

/**
 * The worker's wait for an account's send rate. An account the registry does not have yet was perhaps
 * created a moment ago (its notification still on the way): it is read once more before sending. One
 * still missing was deleted meanwhile: there is no rate to wait for, and the send fails as an unknown
 * account (which parks the account's messages rather than spending their attempts).
 */
export function createAwaitSendRate(
  accounts: Pick<AccountRegistry, 'get' | 'refresh'>,
  limiterFor: (appId: string) => RateLimiter,
): (appId: string) => Promise<void> {
  return async (appId) => {
    if (!accounts.get(appId)) await accounts.refresh();
    if (accounts.get(appId)) await limiterFor(appId).acquire();
  };
}
