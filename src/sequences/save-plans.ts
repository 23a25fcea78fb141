import type { PoolClient } from '../db/pool';
import { findWindowEnds, followerKey } from '../store/follower-window';
import { insertLastChances } from '../store/last-chance-steps';
import { insertWaits } from '../store/journey-waits';
import type { NewMessage } from '../store/message-store';
import type { PlannedPath } from './plan-path';

/**
 * Records what the paths just planned reach — their waits and their last-chance steps — in the caller's
 * transaction, and returns their messages, for `insertScheduled` in the same transaction.
 */
export async function savePlans(db: PoolClient, plans: readonly PlannedPath[]): Promise<NewMessage[]> {
  await insertWaits(
    db,
    plans.flatMap((p) => (p.wait ? [p.wait] : [])),
  );
  await insertLastChances(
    db,
    plans.flatMap((p) => p.lastChances),
  );
  return plans.flatMap((p) => p.messages);
}

/**
 * The current window's end of each follower whose path has a last-chance step (`needs`), by
 * `followerKey`: one read, none when no path needs it.
 */
export async function windowEndsOf(
  db: PoolClient,
  followers: readonly { appId: string; openid: string; needs: boolean }[],
): Promise<(appId: string, openid: string) => Date | null> {
  const needed = followers.filter((f) => f.needs);
  const ends = needed.length > 0 ? await findWindowEnds(db, needed) : new Map<string, Date>();
  return (appId, openid) => ends.get(followerKey(appId, openid)) ?? null;
}
