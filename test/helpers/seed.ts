import type { Pool } from '../../src/db/pool';
import type { MessageStatus } from '../../src/store/message-status';
import { insertMessages } from '../../src/store/insert-messages';
import type { NewMessage } from '../../src/store/message-store';
import { clearOutbox } from '../../src/store/wake-up-outbox';
import { TEST_HORIZON_MS } from './db';

/** What only time or a crash gives a row; set after the store has inserted it. */
export interface SeedState {
  readonly status?: MessageStatus;
  readonly attempts?: number;
  /** Seconds since the row was last touched (the relay's clock). */
  readonly updatedSecondsAgo?: number;
  /** Seconds since a worker claimed it (a row stuck in `sending` after the worker died). */
  readonly claimedSecondsAgo?: number;
}

/**
 * Writes messages through the store's own insert, then gives them the state a test needs (an outage, a
 * dead worker) with one statement. Returns the ids in input order.
 */
export async function seedMessages(
  pool: Pool,
  messages: readonly NewMessage[],
  state: SeedState = {},
): Promise<string[]> {
  const { created, outboxId } = await insertMessages(pool, messages, TEST_HORIZON_MS);
  const ids = created.map((m) => m.id);
  // A row given a state has had its wake-up published long ago.
  if (state.status !== undefined && outboxId !== null) await clearOutbox(pool, [outboxId]);
  await pool.query(
    `UPDATE scheduled_messages SET status = COALESCE($2, status), attempts = COALESCE($3, attempts),
       updated_at = COALESCE(now() - $4 * interval '1 second', updated_at),
       claimed_at = COALESCE(now() - $5 * interval '1 second', claimed_at)
     WHERE id = ANY($1::uuid[])`,
    [
      ids,
      state.status ?? null,
      state.attempts ?? null,
      state.updatedSecondsAgo ?? null,
      state.claimedSecondsAgo ?? null,
    ],
  );
  return ids;
}
