import type { Pool } from '../db/pool';
import type { MessageStatus } from './message-status';

/** How many messages are in `status` now, all accounts together (for the metrics read at scrape time). */
export async function countMessagesIn(pool: Pool, status: MessageStatus): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    // The status is one of the union's constants, written into the text so that the planner can match the
    // partial indexes on status.
    `SELECT count(*)::int AS n FROM scheduled_messages WHERE status = '${status}'`,
  );
  return rows[0].n;
}
