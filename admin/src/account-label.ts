import { h } from './dom.js';
import { t } from './i18n/index.js';
import type { Account } from './types.js';

/**
 * How a row names its account: the account's name, with its app id under it where another account has
 * the same name; the app id where it has none; the app id marked deleted where the account is gone.
 */
export function accountLabel(accounts: readonly Account[], appId: string): HTMLElement[] {
  const words = t().sequences;
  const line = (text: string) => h('span', { class: 'line' }, text);
  const detail = (text: string) => h('span', { class: 'line muted small' }, text);
  const account = accounts.find((a) => a.appId === appId);
  if (!account) return [line(appId), detail(words.accountDeleted)];
  const name = account.name?.trim();
  if (!name) return [line(appId)];
  const repeated = accounts.some((a) => a.appId !== appId && a.name?.trim() === name);
  return repeated ? [line(name), detail(appId)] : [line(name)];
}

/** An account's name as plain text: its name, or its app id when it has none or is gone. */
export const accountName = (accounts: readonly Account[], appId: string): string =>
  accounts.find((a) => a.appId === appId)?.name?.trim() || appId;
