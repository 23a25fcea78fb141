/**
 * A delayed message is only a wake-up call: the scheduled message's id and its due time. The row in
 * Postgres stays the truth; a wake-up for a row that is gone, finished or cancelled is dropped.
 */
export interface WakeUp {
  readonly id: string;
  /** Due time, epoch ms. */
  readonly dueAt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeWakeUp(wakeUp: WakeUp): Buffer {
  return Buffer.from(JSON.stringify({ id: wakeUp.id, dueAt: wakeUp.dueAt }));
}

/** Parses a wake-up body; returns null for anything that is not one (it is then dead-lettered). */
export function parseWakeUp(content: Buffer): WakeUp | null {
  try {
    const value = JSON.parse(content.toString('utf8')) as { id?: unknown; dueAt?: unknown };
    if (typeof value.id !== 'string' || !UUID.test(value.id)) return null;
    if (typeof value.dueAt !== 'number' || !Number.isFinite(value.dueAt)) return null;
    return { id: value.id, dueAt: value.dueAt };
  } catch {
    return null;
  }
}
