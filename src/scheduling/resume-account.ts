import { withTransaction, type Pool } from '../db/pool';
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
    const paused = await client.query<{ paused_until: Date }>(
      `DELETE FROM account_states WHERE app_id = $1 AND paused_until > now() RETURNING paused_until`,
      [appId],
    );
    if (!paused.rows[0]) return { lifted: false, held: [] };
    const { rows } = await client.query<{ id: string; due_at: Date }>(
      `UPDATE scheduled_messages SET due_at = GREATEST(intended_at, now()), updated_at = now()
       WHERE app_id = $1 AND status = 'queued' AND due_at >= $2
       RETURNING id, due_at`,
      [appId, paused.rows[0].paused_until],
    );
    return { lifted: true, held: rows.map((r) => ({ id: r.id, dueAt: r.due_at })) };
  });
}
