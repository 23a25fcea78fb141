import { type Harness } from './harness';
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
 * Time to recover from a fault at `faultAt`, in ms: the longest stretch after it in which a message was
 * due and nothing at all was delivered. Each delivery after the fault closes a stretch that began at
 * the one before it (or the fault), or at its own due time when that is later; a backlog that keeps
 * draining shows no stretch, a stalled one shows the stall.
 */
export function recoveryMs(deliveries: readonly Delivery[], faultAt: number): number {
  const after = deliveries.filter((d) => d.receivedAt >= faultAt).sort((a, b) => a.receivedAt - b.receivedAt);
  let previous = faultAt;
  let longest = 0;
  for (const d of after) {
    longest = Math.max(longest, d.receivedAt - Math.max(previous, d.dueAt));
    previous = d.receivedAt;
  }
  return longest;
}
