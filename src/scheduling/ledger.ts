import type { PoolClient, Pool } from '../db/pool';

/** What a cancellation row targets. `sequence` and `enrollment` arrive with sequences. */
export const CANCEL_SCOPES = ['message', 'cancel_key', 'follower', 'sequence', 'enrollment'] as const;
export type CancelScope = (typeof CANCEL_SCOPES)[number];

export interface CancellationInput {
  readonly appId: string;
  readonly scope: CancelScope;
  readonly target: string;
  readonly reason: string;
  readonly actor: string;
}

export interface Cancellation extends CancellationInput {
  readonly id: number;
  readonly createdAt: Date;
}

/**
 * The SQL condition "a cancellation in the ledger covers message row `m`": same account, recorded after the
 * message was created (seq order, so a reschedule in the same transaction is not caught by its own
 * cancellation), and aimed at the message, its cancel key, its follower, its sequence or its enrollment. Every lookup is on the index
 * cancellations_target; the consume-time check stays one round-trip per batch.
 */
export const LEDGER_COVERS = (m: string) => `EXISTS (
  SELECT 1 FROM cancellations c
  WHERE c.app_id = ${m}.app_id AND c.seq > ${m}.seq AND (
    (c.scope = 'message' AND c.target = ${m}.id::text)
    OR (c.scope = 'cancel_key' AND c.target = ${m}.cancel_key)
    OR (c.scope = 'follower' AND c.target = ${m}.openid)
    OR (c.scope = 'sequence' AND c.target = ${m}.sequence_id::text)
    OR (c.scope = 'enrollment' AND c.target = ${m}.enrollment_id::text)))`;

/** Appends one ledger row. The ledger is append-only: nothing updates or deletes it. */
export async function appendCancellation(
  db: Pool | PoolClient,
  input: CancellationInput,
): Promise<Cancellation> {
  const { rows } = await db.query<{ id: number; created_at: Date }>(
    `INSERT INTO cancellations (app_id, scope, target, reason, actor)
     VALUES ($1, $2, $3, $4, $5) RETURNING id, created_at`,
    [input.appId, input.scope, input.target, input.reason, input.actor],
  );
  return { ...input, id: rows[0].id, createdAt: rows[0].created_at };
}
