/**
 * A delayed message is only a wake-up call: the ids of scheduled messages due at (about) one time, and
 * that time. The rows in Postgres stay the truth; an id whose row is gone, finished or cancelled is
 * dropped. One wake-up carries up to MAX_IDS_PER_WAKE_UP messages that fall due within
 * WAKE_UP_WINDOW_MS of each other, so a burst of 200,000 messages due at one instant costs the broker
 * 2,000 delayed messages, not 200,000.
 */
export interface WakeUp {
  readonly ids: readonly string[];
  /** Due time, epoch ms: the latest due time of its messages (none is woken early). */
  readonly dueAt: number;
}

/** Most message ids in one wake-up (a claim handles them together). */
export const MAX_IDS_PER_WAKE_UP = 100;
/** Messages due this close together share a wake-up; the earliest of them is then up to this late. */
export const WAKE_UP_WINDOW_MS = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeWakeUp(wakeUp: WakeUp): Buffer {
  return Buffer.from(JSON.stringify({ ids: wakeUp.ids, dueAt: wakeUp.dueAt }));
}

/**
 * Parses a wake-up body; returns null for anything that is not one (it is then dead-lettered). The
 * single-id form `{"id"}` of earlier versions is still read, so wake-ups queued before an upgrade work.
 */
export function parseWakeUp(content: Buffer): WakeUp | null {
  try {
    const value = JSON.parse(content.toString('utf8')) as { id?: unknown; ids?: unknown; dueAt?: unknown };
    const ids = value.ids ?? (value.id === undefined ? undefined : [value.id]);
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_IDS_PER_WAKE_UP) return null;
    if (!ids.every((id) => typeof id === 'string' && UUID.test(id))) return null;
    if (typeof value.dueAt !== 'number' || !Number.isFinite(value.dueAt)) return null;
    return { ids: ids as string[], dueAt: value.dueAt };
  } catch {
    return null;
  }
}

/**
 * Groups messages into wake-ups: in due order, each wake-up takes the messages due within
 * WAKE_UP_WINDOW_MS of its first, at most MAX_IDS_PER_WAKE_UP, and is due at the latest of them.
 */
export function groupWakeUps(rows: readonly { readonly id: string; readonly dueAt: number }[]): WakeUp[] {
  const sorted = [...rows].sort((a, b) => a.dueAt - b.dueAt);
  const groups: WakeUp[] = [];
  let ids: string[] = [];
  let first = 0;
  let last = 0;
  for (const row of sorted) {
    if (ids.length > 0 && (row.dueAt - first > WAKE_UP_WINDOW_MS || ids.length === MAX_IDS_PER_WAKE_UP)) {
      groups.push({ ids, dueAt: last });
      ids = [];
    }
    if (ids.length === 0) first = row.dueAt;
    ids.push(row.id);
    last = row.dueAt;
  }
  if (ids.length > 0) groups.push({ ids, dueAt: last });
  return groups;
}
