import type { Pool, PoolClient } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';

/** Stops sending for an account until `until` (WeChat answered 45009: daily quota reached). */
export async function pauseAccount(pool: Pool, appId: string, until: Date, reason: string): Promise<void> {
  await pool.query(
    `INSERT INTO account_states (app_id, paused_until, paused_reason) VALUES ($1, $2, $3)
     ON CONFLICT (app_id) DO UPDATE SET paused_until = GREATEST(account_states.paused_until, $2),
       paused_reason = $3, updated_at = now()`,
    [appId, until.toISOString(), reason],
  );
}

/** Lifts an account's pause, if one is in force; returns the time it would have ended, or null. */
export async function liftPause(client: PoolClient, appId: string): Promise<Date | null> {
  const { rows } = await client.query<{ paused_until: Date }>(
    `DELETE FROM account_states WHERE app_id = $1 AND paused_until > now() RETURNING paused_until`,
    [appId],
  );
  return rows[0]?.paused_until ?? null;
}

/**
 * The messages a pause held back (queued, due at or after its end `pausedUntil`) become due at the time
 * they were meant for, or now; returns them, for the caller to give new wake-ups.
 */
export async function releaseHeldMessages(
  client: PoolClient,
  appId: string,
  pausedUntil: Date,
): Promise<{ id: string; dueAt: Date }[]> {
  const { rows } = await client.query<{ id: string; due_at: Date }>(
    `UPDATE scheduled_messages SET due_at = GREATEST(intended_at, now()), updated_at = now()
     WHERE app_id = $1 AND status = '${MESSAGE_STATUS.queued}' AND due_at >= $2
     RETURNING id, due_at`,
    [appId, pausedUntil],
  );
  return rows.map((r) => ({ id: r.id, dueAt: r.due_at }));
}

/** The accounts paused now (45009), for the account views. */
export async function listPausedAccounts(pool: Pool): Promise<Set<string>> {
  const { rows } = await pool.query<{ app_id: string }>(
    `SELECT app_id FROM account_states WHERE paused_until > now()`,
  );
  return new Set(rows.map((r) => r.app_id));
}

/** The pauses in force now, with their reasons (errcode:45009, or the code of refused credentials). */
export async function listAccountPauses(pool: Pool): Promise<{ appId: string; reason: string }[]> {
  const { rows } = await pool.query<{ app_id: string; paused_reason: string | null }>(
    `SELECT app_id, paused_reason FROM account_states WHERE paused_until > now()`,
  );
  return rows.map((r) => ({ appId: r.app_id, reason: r.paused_reason ?? 'unspecified' }));
}
