import { withTransaction, type Pool } from '../db/pool';
import { liftPause, releaseHeldMessages } from '../store/account-states';
import type { Dispatchable } from './dispatch';

/**
 * Lifts an account's pause (after `clear_quota`, say): the pause row goes, and the messages it held —
 * queued with their due time moved to the quota reset — are due again at the time they were meant for
 * (or now). Returns them, for the caller to give new wake-ups.
 */
export async function resumeAccount(
  pool: Pool,
  appId: string,
): Promise<{ lifted: boolean; held: Dispatchable[] }> {
  return withTransaction(pool, async (client) => {
    const pausedUntil = await liftPause(client, appId);
    if (pausedUntil === null) return { lifted: false, held: [] };
    return { lifted: true, held: await releaseHeldMessages(client, appId, pausedUntil) };
  });
}
