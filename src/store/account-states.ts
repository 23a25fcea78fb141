import type { Pool } from '../db/pool';

/** Stops sending for an account until `until` (WeChat answered 45009: daily quota reached). */
export async function pauseAccount(pool: Pool, appId: string, until: Date, reason: string): Promise<void> {
  await pool.query(
    `INSERT INTO account_states (app_id, paused_until, paused_reason) VALUES ($1, $2, $3)
     ON CONFLICT (app_id) DO UPDATE SET paused_until = GREATEST(account_states.paused_until, $2),
       paused_reason = $3, updated_at = now()`,
    [appId, until.toISOString(), reason],
  );
}
