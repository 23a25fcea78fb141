import { type Pool, withTransaction } from '../db/pool';
import { decideSlice } from '../policy/decide-slice';
import {
  CLAIMED_AS,
  type ClaimedAs,
  type ClaimSkipReason,
  type Decision,
  type EarlyReason,
} from '../policy/decision';
import { writeClaim, type MessageWrite } from './claim-write';
import { readClaimSnapshot } from './claim-snapshot';
import { ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER, CLAIM_LOCK_KEY } from './ledger';
import { MESSAGE_STATUS } from './message-status';
import type { Message } from './message-store';
import { SEND_RATE_HORIZON_MS } from './send-pacing';
import { byIdStatement, partitionSlotsOf } from './message-partitions';

export { CLAIM_SKIP_REASON, CLAIMED_AS, EARLY_REASON } from '../policy/decision';
export type { ClaimedAs, ClaimSkipReason, EarlyReason } from '../policy/decision';

/** A message the worker now owns (`sending`) and must send. */
export interface ClaimedMessage extends Pick<
  Message,
  'id' | 'appId' | 'openid' | 'channel' | 'payload' | 'dueAt'
> {
  /** Attempts so far, this one included. */
  readonly attempts: number;
  /** How the claim let it through: `send` (no window check), `send:window`, `send:fallback`. */
  readonly claimedAs: ClaimedAs;
  /** The request that scheduled it, for the logs. */
  readonly requestId: string | null;
}

/** What the claim did with a batch of wake-ups, by kind. */
export interface ClaimResult {
  readonly claimed: ClaimedMessage[];
  /**
   * Re-delay by `remainingMs`: not due yet (early arrival, or its account is paused: moved to the pause's
   * end), due while its account's send rate is reserved further ahead than the horizon (`send_rate`;
   * spread at the rate), or moved to the end of its quiet hours or to the next capped day.
   */
  readonly early: { id: string; dueAt: Date; remainingMs: number; reason: EarlyReason }[];
  /** Found covered by the ledger and marked `cancelled` by this claim. */
  readonly cancelled: string[];
  /** Marked `skipped` by this claim, with the reason (src/policy/decision.ts). */
  readonly skipped: { id: string; reason: ClaimSkipReason }[];
  // Every other id is gone, finished, or being sent by someone else: its wake-up is dropped.
}

/** Shared claim locks on the batch's accounts, in account order (a claim never waits holding a later one). */
export const CLAIM_LOCKS_SQL = `
SELECT pg_advisory_xact_lock_shared(${CLAIM_LOCK_KEY('s.app_id')}) FROM ${ACCOUNTS_OF_MESSAGES_IN_LOCK_ORDER} s`;
const claimLocks = byIdStatement('claim_locks', CLAIM_LOCKS_SQL);

/** The row a decision leaves; null for one that writes nothing (not due, or waiting for the rate). */
function writeOf(id: string, decision: Decision): MessageWrite | null {
  const write = { id, reason: null, dueAt: null, onFallback: false };
  switch (decision.kind) {
    case 'send': {
      const onFallback = decision.as === CLAIMED_AS.fallback;
      const reason = onFallback ? 'fallback:window_closed' : null;
      return { ...write, status: MESSAGE_STATUS.sending, reason, onFallback };
    }
    case 'move':
      return { ...write, status: MESSAGE_STATUS.queued, dueAt: decision.to };
    case 'skip':
      return { ...write, status: MESSAGE_STATUS.skipped, reason: decision.reason };
    case 'cancelled':
      return { ...write, status: MESSAGE_STATUS.cancelled, reason: 'ledger' };
    case 'early':
      return null;
  }
}

/**
 * The consume-time check of a batch of wake-ups, in one transaction: the claim locks (below), one read
 * of everything that decides the batch's open messages (CLAIM_SNAPSHOT_SQL, rows locked), the send policy
 * (src/policy: ledger, pause, due, send rate, account state, staleness, subscription, quiet hours,
 * frequency cap, notice acceptances, contact window and fallback) decided in code with the database's
 * clock, and one guarded write of what it decided (CLAIM_WRITE_SQL): claimed rows go `sending` (attempts
 * + 1), skipped and cancelled ones final, moved ones stay queued with their new due time, and the
 * followers' window allowance, capped count and acceptances are spent. Two workers, or a worker and a
 * redelivery, can never both claim a row: the second waits for the first's row locks and then no
 * longer finds the row open.
 *
 * The claim holds a shared lock on each account it claims for, taken in a statement of its own so that the
 * claim's snapshot is taken after it: a counted cancellation (`holdClaims`) waits for claims in flight and
 * holds new ones back until its ledger row is committed, so its count of what it stopped is true.
 */
export async function claimDue(
  pool: Pool,
  ids: readonly string[],
  toleranceMs: number,
  uncheckedAppIds: readonly string[],
): Promise<ClaimResult> {
  const result: ClaimResult = { claimed: [], early: [], cancelled: [], skipped: [] };
  await withTransaction(pool, async (client) => {
    await client.query(claimLocks([ids], partitionSlotsOf(ids, { awaitingPump: true })));
    const { snapshots, clock } = await readClaimSnapshot(client, ids, uncheckedAppIds);
    if (clock === null) return;
    const slice = decideSlice(snapshots, clock, { toleranceMs, rateHorizonMs: SEND_RATE_HORIZON_MS });
    const writes = slice.decisions.flatMap(
      ({ snapshot, decision }) => writeOf(snapshot.message.id, decision) ?? [],
    );
    const claimed =
      writes.length === 0 ? [] : await writeClaim(client, writes, slice.followers, slice.acceptances);
    const claimedById = new Map(claimed.map((r) => [r.id, r]));
    for (const { snapshot, decision } of slice.decisions) {
      const { id, dueAt } = snapshot.message;
      if (decision.kind === 'cancelled') result.cancelled.push(id);
      else if (decision.kind === 'skip') result.skipped.push({ id, reason: decision.reason });
      else if (decision.kind === 'early') {
        result.early.push({ id, dueAt, remainingMs: decision.remainingMs, reason: decision.reason });
      } else if (decision.kind === 'move') {
        const remainingMs = decision.to.getTime() - clock.now.getTime();
        result.early.push({ id, dueAt: decision.to, remainingMs, reason: decision.reason });
      } else {
        const r = claimedById.get(id)!;
        result.claimed.push({
          id,
          appId: r.app_id,
          openid: r.openid,
          channel: r.channel,
          payload: r.payload,
          dueAt: r.due_at,
          attempts: r.attempts,
          claimedAs: decision.as,
          requestId: r.request_id,
        });
      }
    }
  });
  return result;
}
