import type { PoolClient } from '../db/pool';
import type { FollowerEventView } from '../contract';

/** An event another system posts for a follower. */
export interface NewFollowerEvent {
  readonly appId: string;
  readonly openid: string;
  readonly name: string;
  readonly idempotencyKey: string | null;
}

/** An event recorded earlier under the same idempotency key (`openid` is '' once the follower unfollowed). */
export interface PriorFollowerEvent {
  readonly openid: string;
  readonly name: string;
  readonly answer: FollowerEventView;
}

/**
 * Records the event: returns its id and time, or null when its idempotency key was recorded already (a
 * concurrent request with the same key waits here until the first commits or rolls back).
 */
export async function insertFollowerEvent(
  db: PoolClient,
  e: NewFollowerEvent,
): Promise<{ id: string; at: Date } | null> {
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO follower_events (app_id, openid, name, idempotency_key) VALUES ($1, $2, $3, $4)
     ON CONFLICT (app_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING id::text, created_at`,
    [e.appId, e.openid, e.name, e.idempotencyKey],
  );
  return rows[0] ? { id: rows[0].id, at: rows[0].created_at } : null;
}

/** The event recorded under this idempotency key, with its answer. */
export async function findFollowerEventByKey(
  db: PoolClient,
  appId: string,
  idempotencyKey: string,
): Promise<PriorFollowerEvent> {
  const { rows } = await db.query<PriorFollowerEvent>(
    `SELECT openid, name, answer FROM follower_events WHERE app_id = $1 AND idempotency_key = $2`,
    [appId, idempotencyKey],
  );
  return rows[0];
}

/** Keeps the answer given to the event's request, for a repeat of its idempotency key. */
export async function saveFollowerEventAnswer(
  db: PoolClient,
  id: string,
  answer: FollowerEventView,
): Promise<void> {
  await db.query(`UPDATE follower_events SET answer = $2 WHERE id = $1`, [id, JSON.stringify(answer)]);
}
