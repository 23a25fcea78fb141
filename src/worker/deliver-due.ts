import type { Publisher } from '../broker/publisher';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { CustomMessage, NoticeMessage, TemplateMessage } from '../wechat/message-schema';
import { clientMsgIdOf } from '../wechat/client';
import type { JudgedSend, Sender } from '../wechat/judged-sender';
import { type Delivery, trackAcks, type WakeUpAcks } from './ack-tracker';
import type { DbGate } from './db-gate';
import { countClaim, countOutcome } from './delivery-metrics';
import type { DeliveryStore } from './delivery-store';
import { decideOutcome, type DeliveryPlan } from './decide-outcome';
import type { ClaimedMessage } from '../store/claim-due';
import { MESSAGE_STATUS } from '../store/message-status';
import type { Outcome } from '../store/record-outcomes';
import type { RetryPolicy } from './retry-policy';
import type { AwaitTurn } from './pace-sends';
import type { SendSlots } from './send-slots';
import { loggableError } from '../loggable-error';

export interface DeliverDueDeps {
  /** The claim, the record of outcomes, pauses and closed windows (`createDeliveryStore(pool)`). */
  readonly store: DeliveryStore;
  readonly publisher: Pick<Publisher, 'publishWakeUp' | 'publishDead'>;
  /** The WeChat side: every send resolves with WeChat's verdict, translated at the WeChat boundary. */
  readonly sender: Sender;
  /**
   * Reserves the claimed messages' turns under their accounts' deployment-wide send rates
   * (`createPaceSends`). Called after the claim (a wake-up does not say which account its rows belong
   * to); each message then waits for its turn inside its send slot, and the claim keeps the reservations
   * within a short horizon, so the wait is bounded too.
   */
  readonly paceSends: (claimed: readonly ClaimedMessage[]) => Promise<AwaitTurn>;
  readonly gate: DbGate;
  readonly policy: RetryPolicy;
  readonly earlyToleranceMs: number;
  /** Most messages claimed in one claim (one transaction). */
  readonly batchSize: number;
  /** One per row this worker may hold in `sending`: taken before the claim, given back once recorded. */
  readonly slots: SendSlots;
  /** Accounts whose contact window is not checked here (window policy `none`). */
  readonly uncheckedAppIds: readonly string[];
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/** A failed re-publish is retried by redelivery; wait a little first so a broken channel is not hammered. */
const REQUEUE_PAUSE_MS = 1000;

/**
 * Handles one batch of due wake-ups: one claim (a locked read, the send policy, one write) takes what is
 * due, early arrivals are re-delayed for the remainder, claimed messages are sent, all outcomes are
 * recorded in one round-trip, retries get new wake-ups, and only then is each wake-up acknowledged.
 * Never rejects.
 */
export function createDeliverDue(
  deps: DeliverDueDeps,
): (batch: Delivery[], stopping?: () => boolean) => Promise<void> {
  const { logger } = deps;

  /** Re-delays one message with a wake-up of its own; its delivery is settled once that is confirmed. */
  async function republish(id: string, dueAt: number, acks: WakeUpAcks, reason: string): Promise<void> {
    try {
      await deps.publisher.publishWakeUp({ ids: [id], dueAt }, reason);
      acks.done(id);
    } catch (err) {
      logger.warn({ id, err: loggableError(err) }, 're-delay failed; the wake-up will be redelivered');
      await new Promise((r) => setTimeout(r, REQUEUE_PAUSE_MS));
      acks.redeliver(id);
    }
  }

  async function send(message: ClaimedMessage, awaitTurn: AwaitTurn): Promise<JudgedSend> {
    await awaitTurn(message);
    const { appId, openid, payload } = message;
    if (message.channel === 'template')
      return deps.sender.sendTemplate(appId, openid, payload as TemplateMessage, clientMsgIdOf(message.id));
    if (message.channel === 'notice') return deps.sender.sendNotice(appId, openid, payload as NoticeMessage);
    return deps.sender.sendCustom(appId, openid, payload as CustomMessage);
  }

  /** Ids only — never the message body or a token. Failures at warn, the rest at debug. */
  function logOutcome(outcome: Outcome, message: ClaimedMessage): void {
    const fields = {
      requestId: message.requestId,
      messageId: message.id,
      appId: message.appId,
      status: outcome.status,
      reason: outcome.reason,
      errcode: outcome.errcode,
      attempt: outcome.attempt,
    };
    if (outcome.status === 'failed') logger.warn(fields, 'message failed');
    else if (outcome.status === MESSAGE_STATUS.unknown)
      logger.warn(fields, 'answer lost; message may have been sent, not resending');
    else logger.debug(fields, 'message outcome');
  }

  /** Carries out a plan's steps beyond the recorded outcome, then settles the message or re-delays it. */
  async function carryOut(plan: DeliveryPlan, message: ClaimedMessage, acks: WakeUpAcks): Promise<void> {
    const { outcome } = plan;
    if (plan.pauseAccount) {
      await deps.gate.run('pause account', () =>
        deps.store.pauseAccount(message.appId, outcome.nextDueAt!, outcome.reason ?? 'errcode:45009'),
      );
      // The reason says why: errcode:45009 (daily quota) or the code of a refused configuration.
      logger.error(
        { appId: message.appId, until: outcome.nextDueAt, reason: outcome.reason },
        'account paused',
      );
    }
    if (plan.closeWindow) {
      await deps.gate.run('close window', () => deps.store.closeWindow(message.appId, message.openid));
    }
    if (plan.deadLetter) {
      deps.metrics.deadLettered.inc({ reason: outcome.reason ?? 'failed' });
      await deps.publisher
        .publishDead({ ids: [message.id], dueAt: message.dueAt.getTime() }, outcome.reason ?? 'failed')
        .catch((err: Error) =>
          logger.error({ id: message.id, err: loggableError(err) }, 'dead-letter publish failed'),
        );
    }
    if (plan.republish) await republish(message.id, outcome.nextDueAt!.getTime(), acks, plan.republish);
    else acks.done(message.id);
  }

  /**
   * Claims, sends and records one slice of a batch, holding one send slot per id on entry; false when it
   * failed (its wake-ups are requeued). The slots of ids not claimed are given back at once, the others
   * once their outcomes are recorded: a slot stands for a row in `sending`.
   */
  async function deliverSlice(ids: string[], acks: WakeUpAcks): Promise<boolean> {
    let held = ids.length;
    const holdOnly = (count: number) => {
      deps.slots.release(held - count);
      held = count;
    };
    try {
      const claim = await deps.gate.run('claim', () =>
        deps.store.claimDue(ids, deps.earlyToleranceMs, deps.uncheckedAppIds),
      );
      holdOnly(claim.claimed.length);
      const early = claim.early.map((e) => republish(e.id, Date.now() + e.remainingMs, acks, e.reason));
      const claimedIds = new Set(claim.claimed.map((m) => m.id));
      const earlyIds = new Set(claim.early.map((e) => e.id));
      let settled = 0;
      for (const id of ids) {
        if (claimedIds.has(id) || earlyIds.has(id)) continue;
        settled++;
        acks.done(id);
      }
      countClaim(deps.metrics, claim, settled - claim.cancelled.length - claim.skipped.length);

      const awaitTurn = await deps.gate.run('reserve send rate', () => deps.paceSends(claim.claimed));
      const sent = await Promise.all(
        claim.claimed.map(async (message) => {
          const judged = await send(message, awaitTurn);
          const readyAt = acks.readyAt(message.id);
          if (readyAt) deps.metrics.pipeline.observe(Math.max(0, judged.at.getTime() - readyAt) / 1000);
          return judged;
        }),
      );
      const decisions = claim.claimed.map((message, i) => {
        const { result, at, verdict } = sent[i];
        return { message, plan: decideOutcome(message, { ...result, at }, verdict, deps.policy) };
      });
      await deps.gate.run('record outcomes', () =>
        deps.store.recordOutcomes(decisions.map((d) => d.plan.outcome)),
      );
      holdOnly(0);
      await Promise.all(
        decisions.map(async ({ message, plan }) => {
          countOutcome(deps.metrics, plan.outcome, message.channel, message.dueAt);
          logOutcome(plan.outcome, message);
          await carryOut(plan, message, acks);
        }),
      );
      await Promise.all(early);
      return true;
    } catch (err) {
      logger.error({ err: loggableError(err) }, 'batch failed; its wake-ups will be redelivered');
      acks.redeliverAll();
      return false;
    } finally {
      holdOnly(0);
    }
  }

  /**
   * A batch's messages are claimed in slices of at most `batchSize` and never more than the free send
   * slots, waiting for one to free up: the claim never runs ahead of the sends, so a crash strands no more
   * rows in `sending` than there are slots. When the worker is stopping, the slices not yet claimed are
   * handed back: their wake-ups are requeued, and whatever of them was already handled is dropped on arrival.
   */
  return async function deliverDue(batch: Delivery[], stopping: () => boolean = () => false): Promise<void> {
    const acks = trackAcks(batch, () => {
      logger.error('a message on the due queue is not a wake-up; dead-lettering it');
      deps.metrics.deadLettered.inc({ reason: 'not_a_wakeup' });
    });
    for (let from = 0; from < acks.ids.length;) {
      const taken = await deps.slots.acquireUpTo(Math.min(deps.batchSize, acks.ids.length - from));
      if (stopping()) {
        deps.slots.release(taken);
        return acks.redeliverAll();
      }
      const slice = acks.ids.slice(from, from + taken);
      from += taken;
      if (!(await deliverSlice(slice, acks))) return;
    }
  };
}
