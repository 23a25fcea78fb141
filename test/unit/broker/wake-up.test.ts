import { randomUUID } from 'node:crypto';
import {
  encodeWakeUp,
  groupWakeUps,
  MAX_IDS_PER_WAKE_UP,
  parseWakeUp,
  WAKE_UP_WINDOW_MS,
} from '../../../src/broker/wake-up';

const rows = (dueTimes: number[]) => dueTimes.map((dueAt) => ({ id: randomUUID(), dueAt }));

describe('groupWakeUps', () => {
  it('puts messages due at one instant into wake-ups of at most MAX_IDS_PER_WAKE_UP', () => {
    const input = rows(Array.from({ length: 2 * MAX_IDS_PER_WAKE_UP + 1 }, () => 5000));
    const groups = groupWakeUps(input);
    expect(groups.map((g) => g.ids.length)).toEqual([MAX_IDS_PER_WAKE_UP, MAX_IDS_PER_WAKE_UP, 1]);
    expect(groups.every((g) => g.dueAt === 5000)).toBe(true);
    expect(new Set(groups.flatMap((g) => g.ids))).toEqual(new Set(input.map((r) => r.id)));
  });

  it('wakes a group at its latest due time, never before any of its messages', () => {
    const input = rows([1000 + WAKE_UP_WINDOW_MS, 1000, 1005, 1000 + WAKE_UP_WINDOW_MS + 1]);
    const groups = groupWakeUps(input);
    expect(groups).toEqual([
      { ids: [input[1].id, input[2].id, input[0].id], dueAt: 1000 + WAKE_UP_WINDOW_MS },
      { ids: [input[3].id], dueAt: 1000 + WAKE_UP_WINDOW_MS + 1 },
    ]);
  });

  it('keeps messages due far apart in wake-ups of their own', () => {
    const groups = groupWakeUps(rows([0, 1000, 2000]));
    expect(groups.map((g) => [g.ids.length, g.dueAt])).toEqual([
      [1, 0],
      [1, 1000],
      [1, 2000],
    ]);
    expect(groupWakeUps([])).toEqual([]);
  });
});

describe('parseWakeUp', () => {
  const id = randomUUID();

  it('reads what encodeWakeUp writes, and the single-id form of earlier versions', () => {
    const wakeUp = { ids: [id, randomUUID()], dueAt: 123 };
    expect(parseWakeUp(encodeWakeUp(wakeUp))).toEqual(wakeUp);
    expect(parseWakeUp(Buffer.from(JSON.stringify({ id, dueAt: 5 })))).toEqual({ ids: [id], dueAt: 5 });
  });

  it.each([
    ['not JSON', 'nope'],
    ['no ids', JSON.stringify({ dueAt: 1 })],
    ['empty ids', JSON.stringify({ ids: [], dueAt: 1 })],
    ['a non-uuid id', JSON.stringify({ ids: [id, 'x'], dueAt: 1 })],
    ['too many ids', JSON.stringify({ ids: Array(MAX_IDS_PER_WAKE_UP + 1).fill(id), dueAt: 1 })],
    ['no due time', JSON.stringify({ ids: [id] })],
    ['a due time that is not a number', JSON.stringify({ ids: [id], dueAt: '1' })],
  ])('refuses %s', (_name, body) => {
    expect(parseWakeUp(Buffer.from(body))).toBeNull();
  });
});
