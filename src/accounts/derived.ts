import type { Account } from './account';
import type { Accounts } from './registry';

/**
 * A value derived from all the accounts (the app ids with at-least-once, say), recomputed only when the
 * registry's list changed: it hands out a new list on each change, the same one otherwise.
 */
export function derivedFrom<T>(accounts: Accounts, derive: (all: readonly Account[]) => T): () => T {
  let from: readonly Account[] | null = null;
  let value!: T;
  return () => {
    const all = accounts.all();
    if (all !== from) {
      value = derive(all);
      from = all;
    }
    return value;
  };
}

/** The app ids of the accounts `pick` selects. */
export const appIdsWhere =
  (pick: (a: Account) => boolean) =>
  (all: readonly Account[]): string[] =>
    all.filter(pick).map((a) => a.appId);
