import type { Received } from './simulator';

/** What the simulator's record says about one scenario's messages. */
export interface Tally {
  readonly expected: number;
  /** Distinct expected tags received (once or more). */
  readonly delivered: number;
  /** Tags received more than once (counted once each). */
  readonly duplicates: number;
  /** Expected tags never received. */
  readonly lost: number;
  /** Cancelled tags that were received anyway. */
  readonly cancelledSent: number;
  /** Received − due, ms, over the first arrival of each delivered tag. */
  readonly lateness: { p50: number; p99: number; max: number };
  /** Last first-arrival, epoch ms (NaN when nothing arrived). */
  readonly lastAt: number;
}

/** The value at percentile `p` (nearest rank) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Median of the numbers (NaN ignored; NaN when none). */
export function median(values: readonly number[]): number {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/**
 * Counts `received` against what should have come: `due` maps each expected tag to its due time,
 * `cancelled` holds the tags that must not arrive. Tags of neither kind (another scenario's) are ignored.
 */
export function tally(
  received: readonly Received[],
  due: ReadonlyMap<string, number>,
  cancelled: ReadonlySet<string>,
): Tally {
  const times = new Map<string, number>();
  let duplicates = 0;
  let cancelledSent = 0;
  const seenTwice = new Set<string>();
  for (const r of received) {
    if (cancelled.has(r.tag)) {
      cancelledSent++;
      continue;
    }
    if (!due.has(r.tag)) continue;
    if (times.has(r.tag)) {
      if (!seenTwice.has(r.tag)) duplicates++;
      seenTwice.add(r.tag);
    } else times.set(r.tag, r.receivedAt);
  }
  const lateness: number[] = [];
  let lastAt = NaN;
  for (const [tag, at] of times) {
    lateness.push(at - due.get(tag)!);
    if (!(at <= lastAt)) lastAt = at;
  }
  lateness.sort((a, b) => a - b);
  return {
    expected: due.size,
    delivered: times.size,
    duplicates,
    lost: due.size - times.size,
    cancelledSent,
    lateness: { p50: percentile(lateness, 50), p99: percentile(lateness, 99), max: lateness.at(-1) ?? NaN },
    lastAt,
  };
}
