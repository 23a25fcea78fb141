import type { Delivery } from './ack-tracker';

/**
 * Holds wake-ups that arrive a little before their due time, unacknowledged, until that time. The levels
 * transport delivers up to `DelayTransport.earlyMs` early on purpose (rounding a wait up to its unit would
 * make every wake-up late by half a unit on average); the hold takes up the remainder on a timer instead of
 * a round trip through the broker.
 *
 * What is held stays unacknowledged, so the broker's prefetch bounds it, and a crash only means a
 * redelivery (the claim then finds each row as it is: a row already sent is dropped). A wake-up further
 * ahead than `maxHoldMs` (a chained wait, a stale clock) is not held: it goes on at once, and the claim
 * re-delays it through the broker.
 */
export interface Hold {
  /** Passes the delivery on at its due time, or at once when it is due, too far ahead, or not a wake-up. */
  add(delivery: Delivery): void;
  /** Hands every held delivery back to the broker (requeue) and passes nothing on from now on. */
  stop(): void;
  /** Deliveries held now. */
  readonly size: number;
}

export function createHold(deps: {
  /** Longest wait held in the process; a wake-up due later than this goes on at once. */
  maxHoldMs: number;
  /** Where a delivery goes once due (the batcher). */
  release: (delivery: Delivery) => void;
  now?: () => number;
}): Hold {
  const now = deps.now ?? Date.now;
  const held = new Map<Delivery, NodeJS.Timeout>();
  let stopped = false;
  /** Arms the timer; one that fires a millisecond early (timers round) is armed again for the rest. */
  function holdUntil(delivery: Delivery, dueAt: number): void {
    const timer = setTimeout(() => {
      if (now() < dueAt) return holdUntil(delivery, dueAt);
      held.delete(delivery);
      deps.release(delivery);
    }, dueAt - now());
    held.set(delivery, timer);
  }

  return {
    add(delivery) {
      if (stopped) return delivery.nack(true);
      const waitMs = delivery.wakeUp ? delivery.wakeUp.dueAt - now() : 0;
      if (waitMs <= 0 || waitMs > deps.maxHoldMs) return deps.release(delivery);
      holdUntil(delivery, delivery.wakeUp!.dueAt);
    },
    stop() {
      stopped = true;
      for (const [delivery, timer] of held) {
        clearTimeout(timer);
        delivery.nack(true);
      }
      held.clear();
    },
    get size() {
      return held.size;
    },
  };
}
