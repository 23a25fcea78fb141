import type { KeyOperation } from '../contract';

/** An API key as the api process holds it: what it may do, for which accounts. */
export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly appIds: ReadonlySet<string>;
  readonly operations: ReadonlySet<KeyOperation>;
}

/**
 * Who a request acts for: the admin token (ADMIN_TOKEN: everything, the bootstrap credential) or an API
 * key (its operations, for its accounts only).
 */
export type Principal = { readonly kind: 'admin_token' } | { readonly kind: 'key'; readonly key: ApiKey };

export const ADMIN_PRINCIPAL: Principal = Object.freeze({ kind: 'admin_token' });

/** Whether `p` may see and act on account `appId` at all (an account it may not is, to it, not there). */
export const mayUseAccount = (p: Principal, appId: string): boolean =>
  p.kind === 'admin_token' || p.key.appIds.has(appId);
