import type { PoolClient } from '../db/pool';
import type { ExitedEnrollment } from '../contract';
import { countOpenStepsByEnrollment, listRunningWithExits } from '../store/enrollment-exits';
import { appendCancellation, holdClaimsOfAccounts } from '../store/ledger';
import { endWaitsOfEnrollments } from '../store/journey-waits';
import { exitReason, matchExit } from './exits';
import { type FollowerAction, meetsCondition } from './follower-actions';

/** The ledger reason of an enrollment its goal ended (`"exit": true`): counted with the exits. */
export const GOAL_EXIT = 'exit:goal';

/** A follower's push or posted event, offered to the exit conditions of their running enrollments. */
export interface ExitInput {
  readonly appId: string;
  readonly openid: string;
  readonly event: FollowerAction;
}

/**
 * Ends each running enrollment (one with a step still to send, or a journey wait open — which ends too)
 * whose sequence has an exit condition (or a goal with `exit`, reason `exit:goal`) the
 * follower's event meets — the first such condition in the sequence's list names the exit — with one
 * ledger row (scope `enrollment`, reason `exit:…`, see `exitReason`): the worker finds it when each step
 * falls due. Returns, per input, the enrollments it ended and how many steps each had left.
 *
 * The count is true as a cancellation by key's is: claims in flight on those accounts finish first (what
 * they took is being sent and goes out) and none starts until the caller's transaction commits. Run it
 * before the transaction locks a follower or message row: a claim waits for those while holding its lock.
 * `lockAlso`: the accounts whose claim locks the caller takes after this (`moveLastChances`), taken here
 * with the exits' in one ordered statement.
 */
export async function applyExits(
  db: PoolClient,
  inputs: readonly ExitInput[],
  actor: string,
  lockAlso: readonly string[] = [],
): Promise<ExitedEnrollment[][]> {
  const exited: ExitedEnrollment[][] = inputs.map(() => []);
  const running = await listRunningWithExits(db, inputs);
  const hits = running.flatMap((r) => {
    const event = inputs[r.index].event;
    const condition = matchExit(r.exits, event);
    if (condition) return [{ ...r, reason: exitReason(condition) }];
    return r.exitGoal && meetsCondition(r.exitGoal.until, event) ? [{ ...r, reason: GOAL_EXIT }] : [];
  });
  // One ordered statement for every claim lock the caller's transaction will take (`lockAlso`: a second
  // taken later could wait for a claim that waits for one taken here).
  const locking = [...hits.map((hit) => hit.appId), ...lockAlso];
  if (locking.length > 0) await holdClaimsOfAccounts(db, locking);
  if (hits.length === 0) return exited;
  const open = await countOpenStepsByEnrollment(
    db,
    hits.map((hit) => hit.enrollmentId),
  );
  const waiting = await endWaitsOfEnrollments(
    db,
    hits.map((hit) => hit.enrollmentId),
  );
  for (const hit of hits) {
    const cancelled = open.get(hit.enrollmentId) ?? 0;
    // Claims that were in flight took what was left: those steps are being sent, nothing remains to end —
    // unless a journey's wait was still open (ended above: no path starts after the exit).
    if (cancelled === 0 && !waiting.has(hit.enrollmentId)) continue;
    await appendCancellation(db, {
      appId: hit.appId,
      scope: 'enrollment',
      target: hit.enrollmentId,
      reason: hit.reason,
      actor,
    });
    exited[hit.index].push({
      sequenceId: hit.sequenceId,
      enrollmentId: hit.enrollmentId,
      reason: hit.reason,
      cancelled,
    });
  }
  return exited;
}
