/**
 * The worker's send slots: one per row it may hold in `sending`. A slot is taken before the claim and
 * given back once the row's outcome is recorded, so a worker killed at any moment leaves at most this
 * many rows in `sending` (to end `unknown`) — the sends it really had in flight, not the batches it had
 * prefetched.
 */
export interface SendSlots {
  /**
   * Waits until at least one slot is free, then takes as many as are free, up to `wanted` (≥ 1), and
   * resolves with how many it took. Callers are served in arrival order.
   */
  acquireUpTo(wanted: number): Promise<number>;
  /** Gives `count` slots back. */
  release(count: number): void;
  /** Slots taken now. */
  readonly inUse: number;
}

/** Creates `capacity` send slots. */
export function createSendSlots(capacity: number): SendSlots {
  if (!(Number.isInteger(capacity) && capacity > 0)) {
    throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }
  let free = capacity;
  const waiters: { wanted: number; resolve: (taken: number) => void }[] = [];

  function take(wanted: number): number {
    const taken = Math.min(wanted, free);
    free -= taken;
    return taken;
  }

  function serve(): void {
    while (waiters.length > 0 && free > 0) {
      const next = waiters.shift()!;
      next.resolve(take(next.wanted));
    }
  }

  return {
    acquireUpTo(wanted) {
      if (!(Number.isInteger(wanted) && wanted > 0)) {
        throw new RangeError(`wanted must be a positive integer, got ${wanted}`);
      }
      if (waiters.length === 0 && free > 0) return Promise.resolve(take(wanted));
      return new Promise((resolve) => waiters.push({ wanted, resolve }));
    },
    release(count) {
      if (count < 0 || free + count > capacity) {
        throw new RangeError(`cannot release ${count} slots: ${capacity - free} are taken`);
      }
      free += count;
      serve();
    },
    get inUse() {
      return capacity - free;
    },
  };
}
