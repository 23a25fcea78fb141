import { messageIdTime, newMessageId } from '../../../src/store/message-id';

describe('message ids (src/store/message-id.ts)', () => {
  const due = new Date('2026-12-24T09:30:00.123Z');
  const now = Date.parse('2026-11-27T10:00:00Z');

  it('are UUIDv7-shaped: the intended due time in the first 48 bits, version 7, RFC variant', () => {
    const id = newMessageId(due, now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id.slice(0, 13).replace('-', '')).toBe(due.getTime().toString(16).padStart(12, '0'));
    expect(messageIdTime(id)).toEqual(due);
  });

  it('carry now for a due time already past (the message goes out now, in today’s partition)', () => {
    expect(messageIdTime(newMessageId(new Date(now - 86_400_000), now))).toEqual(new Date(now));
  });

  it('differ for the same due time (74 random bits), and sort by due time', () => {
    const ids = Array.from({ length: 1000 }, () => newMessageId(due, now));
    expect(new Set(ids).size).toBe(1000);
    const later = newMessageId(new Date(due.getTime() + 1), now);
    expect(ids.every((id) => id < later)).toBe(true);
  });

  it('an id from before (random, version 4) carries no time', () => {
    expect(messageIdTime('3f2b8c1e-9d4a-4b7e-8c2d-1a2b3c4d5e6f')).toBeNull();
  });
});
