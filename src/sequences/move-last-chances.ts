import type { PoolClient } from '../db/pool';
import { cancelByIdIn } from '../scheduling/cancel';
import {
  MOVED_REASON,
  type OpenLastChance,
  recordMoves,
  settleLastChances,
} from '../store/last-chance-steps';
import { holdClaimsOfAccounts } from '../store/ledger';
import { newMessageId } from '../store/message-id';
import { MESSAGE_STATUS } from '../store/message-status';
import { findMessages, type NewMessage } from '../store/message-store';
import { lastChanceDue } from './plan-path';

/** A follower's interaction: it opens a window of `windowMs` (null: the account checks none) at `at`. */
export interface InteractionInput {
  readonly appId: string;
  readonly openid: string;
  readonly at: Date;
  readonly windowMs: number | null;
  readonly requestId: string | null;
}

/** The replacement of a moved last-chance step: the same content, due by the new window. */
function replacement(step: OpenLastChance, dueAt: Date, requestId: string | null): NewMessage {
  return {
    id: newMessageId(dueAt),
    appId: step.appId,
    openid: step.openid,
    channel: 'custom',
    payload: step.payload,
    dueAt,
    idempotencyKey: null,
    requestHash: null,
    cancelKey: null,
    maxLatenessMs: step.maxLatenessMs,
    frequencyCapped: true,
    requestId,
    fallback: step.fallback,
    ...(step.fallbackChannel ? { fallbackChannel: step.fallbackChannel } : {}),
    step: {
      sequenceId: step.sequenceId,
      enrollmentId: step.enrollmentId,
      index: step.stepIndex,
      variant: step.variant,
    },
  };
}

/**
 * Each follower's interaction moves their pending last-chance steps to the window it opened (the step due
 * `beforeWindowCloseMs` before its end, not before the interaction): the scheduled message is cancelled and
 * an identical one scheduled (returned, for `insertScheduled` in the same transaction) — unless it is due
 * then already. A step whose message was sent before the interaction recovered the follower (counted,
 * and settled); one cancelled, skipped or failed is settled; one being sent is left for the next
 * interaction. Returns, per input, the steps it moved.
 *
 * `open`: the followers' open steps (`listOpenLastChances`, read before `applyExits`, which takes their
 * accounts' claim locks with its own: pass them as its `lockAlso`). Run it after `applyExits` and before
 * the transaction locks a follower or message row, as a cancellation by id is: with the claim locks held,
 * every claim in flight and every counted cancellation (an exit, a pause) has committed when it reads
 * which messages are still pending — a step of an enrollment ended meanwhile is covered by the ledger and
 * not moved (its replacement would not be).
 */
export async function moveLastChances(
  db: PoolClient,
  inputs: readonly InteractionInput[],
  open: readonly OpenLastChance[],
  actor: string,
): Promise<{ messages: NewMessage[]; moved: number[] }> {
  const moved = inputs.map(() => 0);
  if (open.length === 0) return { messages: [], moved };
  await holdClaimsOfAccounts(
    db,
    open.map((step) => step.appId),
  );
  const current = await findMessages(
    db,
    open.map((step) => step.messageId),
  );
  const settled: Parameters<typeof settleLastChances>[1][number][] = [];
  const moving: { step: OpenLastChance; dueAt: Date }[] = [];
  for (const step of open) {
    const input = inputs[step.index];
    const message = current.get(step.messageId);
    if (message?.status === MESSAGE_STATUS.queued) {
      // No window checked, or a push older than the follower's newest interaction (which moved it already).
      if (input.windowMs === null || (step.windowOpenedAt && input.at < step.windowOpenedAt)) continue;
      const windowEnd = new Date(input.at.getTime() + input.windowMs);
      const dueAt = lastChanceDue(input.at, windowEnd, step.beforeCloseMs);
      if (dueAt.getTime() !== step.dueAt.getTime()) moving.push({ step, dueAt });
    } else if (message?.status === MESSAGE_STATUS.sent) {
      // An interaction from before the send (a push processed late) recovers nothing: the next one may.
      if (message.sentAt && message.sentAt < input.at)
        settled.push({
          enrollmentId: step.enrollmentId,
          stepIndex: step.stepIndex,
          at: input.at,
          recovered: true,
        });
    } else if (message?.status !== MESSAGE_STATUS.sending) {
      settled.push({
        enrollmentId: step.enrollmentId,
        stepIndex: step.stepIndex,
        at: input.at,
        recovered: false,
      });
    }
  }
  await settleLastChances(db, settled);
  if (moving.length === 0) return { messages: [], moved };
  const cancelled = await cancelByIdIn(
    db,
    moving.map(({ step }) => ({ id: step.messageId, reason: MOVED_REASON, actor })),
  );
  const messages: NewMessage[] = [];
  const moves: Parameters<typeof recordMoves>[1][number][] = [];
  for (const { step, dueAt } of moving) {
    if (!cancelled.get(step.messageId)?.cancelled) continue;
    const message = replacement(step, dueAt, inputs[step.index].requestId);
    messages.push(message);
    moves.push({ enrollmentId: step.enrollmentId, stepIndex: step.stepIndex, messageId: message.id, dueAt });
    moved[step.index]++;
  }
  await recordMoves(db, moves);
  return { messages, moved };
}
