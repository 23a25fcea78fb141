import type { Pool } from '../db/pool';
import { MESSAGE_STATUS } from './message-status';

/**
 * Gives failed messages a fresh start (an operator replays the dead letters): `failed` → `queued`, due
 * now, attempts back to 0. Returns the ids it requeued; a row not failed (any more) is left alone.
 */
export async function requeueFailed(pool: Pool, ids: readonly string[]): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `UPDATE scheduled_messages SET status = '${MESSAGE_STATUS.queued}', attempts = 0, status_reason = 'replayed',
       due_at = now(), updated_at = now() WHERE id = ANY($1::uuid[]) AND status = '${MESSAGE_STATUS.failed}' RETURNING id`,
    [ids],
  );
  return rows.map((r) => r.id);
}
