import type { Harness } from './harness';
import { tagOf } from './chaos';

/** One message's due time (as scheduled) and when the simulator received it first, epoch ms. */
export interface Delivery {
  readonly tag: string;
  readonly dueAt: number;
  readonly receivedAt: number;
}

/** Lateness in ms over a scenario's messages: received minus the time it was scheduled for. */
export interface Lateness {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Every received message of `tags` with its scheduled time (`intended_at`, which retries do not move). */
export async function deliveriesOf(h: Harness, tags: readonly string[]): Promise<Delivery[]> {
  const { rows } = await h.db.pool.query<{ tag: string; due: string }>(
    `SELECT coalesce(payload->'text'->>'content', payload->'data'->'tag'->>'value') AS tag,
            (extract(epoch FROM intended_at) * 1000)::bigint AS due
       FROM scheduled_messages`,
  );
  const dueOf = new Map(rows.map((r) => [r.tag, Number(r.due)]));
  const wanted = new Set(tags);
  const firsts = new Map<string, number>();
  for (const m of h.simulator.messages()) {
    const tag = tagOf(m.body);
    if (wanted.has(tag) && !firsts.has(tag)) firsts.set(tag, m.receivedAt);
  }
  return [...firsts].flatMap(([tag, receivedAt]) => {
    const dueAt = dueOf.get(tag);
    return dueAt === undefined ? [] : [{ tag, dueAt, receivedAt }];
  });
}

/** p50 / p99 / max of received − due (early ones count as 0). */
export function latenessOf(deliveries: readonly Delivery[]): Lateness {
  const late = deliveries.map((d) => Math.max(0, d.receivedAt - d.dueAt)).sort((a, b) => a - b);
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: late.at(-1) ?? 0 };
}

/**
 * Time to recover from a fault at `faultAt`, in ms: the longest stretch after it in which some message
 * was due and not yet delivered, and nothing at all was delivered. A backlog that keeps draining shows
 * no stretch; a stalled one shows the stall.
 */
export function recoveryMs(deliveries: readonly Delivery[], faultAt: number): number {
  const after = deliveries.filter((d) => d.receivedAt >= faultAt).sort((a, b) => a.receivedAt - b.receivedAt);
  // The earliest due time among the messages not delivered yet, before each delivery.
  const earliestDue: number[] = [];
  for (let i = after.length - 1, min = Infinity; i >= 0; i--) {
    min = Math.min(min, after[i].dueAt);
    earliestDue[i] = min;
  }
  let previous = faultAt;
  let longest = 0;
  after.forEach((d, i) => {
    longest = Math.max(longest, d.receivedAt - Math.max(previous, earliestDue[i]));
    previous = d.receivedAt;
  });
  return longest;
}
