import type { Logger } from '../logger';
import { parseWakeUp, type WakeUp } from '../broker/wake-up';
import { loggableError } from '../loggable-error';

/** What settling needs of a received message: its body and the tag its channel knows it by. */
export interface ReceivedMessage {
  readonly content: Buffer;
  readonly fields: { readonly deliveryTag: number; readonly redelivered: boolean };
}

/**
 * The part of a channel that settles deliveries (amqplib's `Channel` is one). Both calls throw once the
 * channel is closed.
 */
export interface AckChannel {
  ack(message: ReceivedMessage): void;
  nack(message: ReceivedMessage, allUpTo: boolean, requeue: boolean): void;
}

/** One wake-up as received, settled exactly once on the channel it came from. */
export interface Delivery {
  /** null when the body is not a wake-up (poison). */
  readonly wakeUp: WakeUp | null;
  readonly redelivered: boolean;
  /** When it was received, epoch ms. */
  readonly receivedAt: number;
  ack(): void;
  /** `requeue=false` dead-letters through the due queue's dead-letter exchange. */
  nack(requeue: boolean): void;
}

/**
 * Wraps a received message. Its settlement goes to the very channel it came on: after a reconnect,
 * acking an old delivery tag on the new channel would close it (amqp-connection-manager #294). A
 * settlement on a dead channel is dropped, and the broker redelivers that message. A second settlement
 * is ignored: the broker answers one for an already settled tag by closing the channel.
 */
export function createDelivery(channel: AckChannel, message: ReceivedMessage, logger: Logger): Delivery {
  let settled = false;
  const settle = (fn: () => void) => {
    if (settled) return;
    settled = true;
    try {
      fn();
    } catch (err) {
      logger.debug({ err: loggableError(err) }, 'settle on a closed channel dropped');
    }
  };
  return {
    wakeUp: parseWakeUp(message.content),
    redelivered: message.fields.redelivered,
    receivedAt: Date.now(),
    ack: () => settle(() => channel.ack(message)),
    nack: (requeue) => settle(() => channel.nack(message, false, requeue)),
  };
}

/** Settles a batch's deliveries as their messages are handled. */
export interface WakeUpAcks {
  /** Every message id of the batch's wake-ups, once each. */
  readonly ids: string[];
  /**
   * When the worker had this message's wake-up in hand and due (the later of its arrival and its due
   * time), epoch ms: where the worker's own share of the lateness starts. The earliest of its wake-ups.
   */
  readyAt(id: string): number;
  /** This message is handled: a wake-up whose messages are all handled is acked. */
  done(id: string): void;
  /** This message must come again: its wake-ups are requeued (their handled messages are then dropped
   * by the claim as finished, so a redelivery never sends twice). */
  redeliver(id: string): void;
  /** Requeues every wake-up of the batch not settled yet. */
  redeliverAll(): void;
}

/**
 * A wake-up carries several messages and one message may come in several wake-ups (a relay republish,
 * a redelivery): a delivery is acked once every message it carries is handled, and requeued as soon as
 * one of them must come again. Deliveries that are not wake-ups are dead-lettered at once.
 */
export function trackAcks(batch: readonly Delivery[], onPoison: () => void): WakeUpAcks {
  const byId = new Map<string, Delivery[]>();
  const remaining = new Map<Delivery, number>();
  for (const d of batch) {
    if (!d.wakeUp) {
      onPoison();
      d.nack(false);
      continue;
    }
    const ids = new Set(d.wakeUp.ids);
    remaining.set(d, ids.size);
    for (const id of ids) {
      const list = byId.get(id);
      if (list) list.push(d);
      else byId.set(id, [d]);
    }
  }
  return {
    ids: [...byId.keys()],
    readyAt(id) {
      const ready = (byId.get(id) ?? []).map((d) => Math.max(d.receivedAt, d.wakeUp!.dueAt));
      return ready.length > 0 ? Math.min(...ready) : NaN;
    },
    done(id) {
      for (const d of byId.get(id) ?? []) {
        const left = remaining.get(d)! - 1;
        remaining.set(d, left);
        if (left === 0) d.ack();
      }
    },
    redeliver(id) {
      for (const d of byId.get(id) ?? []) d.nack(true);
    },
    redeliverAll() {
      for (const d of remaining.keys()) d.nack(true);
    },
  };
}
