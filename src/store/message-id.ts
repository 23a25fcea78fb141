import { randomUUID } from 'node:crypto';

/**
 * A new message's id: UUIDv7-shaped, its timestamp field (the first 48 bits) the message's intended due
 * time in ms — or now, for a time already past — the rest random (74 bits). The id alone then names the
 * partition of scheduled_messages the message lives in (migration 0029, `message_slot(id)` in SQL), so a
 * statement that finds messages by id reads only their partitions.
 */
export function newMessageId(dueAt: Date, now = Date.now()): string {
  const hex = Math.max(dueAt.getTime(), now).toString(16).padStart(12, '0');
  // randomUUID: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx with the variant bits V already 10xx.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${randomUUID().slice(15)}`;
}

/** The time a message id carries (newMessageId); null for an id from before (random, version 4). */
export function messageIdTime(id: string): Date | null {
  if (id[14] !== '7') return null;
  return new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16));
}
