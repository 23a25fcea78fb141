import {
  delayCanPushOut,
  outsideWindow,
  stepOutsideWindow,
  triggerKind,
  windowOpenedBy,
  type WindowPolicy,
} from '../../../src/policy/window-rule';

const MIN = 60_000;
const H48 = 48 * 3_600_000;
const official: WindowPolicy = {
  message: { count: 5, windowMs: H48 },
  subscribe: { count: 3, windowMs: MIN },
  scan: { count: 3, windowMs: MIN },
  click: { count: 3, windowMs: MIN },
};

describe('the window an interaction opens', () => {
  it('ends the rule’s span after it and allows the rule’s count; a policy of none opens none', () => {
    const at = new Date('2026-11-25T12:00:00Z');
    expect(windowOpenedBy(official, 'subscribe', at)).toEqual({
      endsAt: new Date('2026-11-25T12:01:00Z'),
      allowance: 3,
    });
    expect(windowOpenedBy(official, 'message', at)?.endsAt).toEqual(new Date('2026-11-27T12:00:00Z'));
    expect(windowOpenedBy(null, 'message', at)).toBeNull();
  });

  it('holds a message before its end and within its allowance: the end and the count are outside', () => {
    const window = { endsAt: new Date(60_000), allowance: 3 };
    expect(outsideWindow(window, 0, new Date(59_999))).toBeNull();
    expect(outsideWindow(window, 2, new Date(0))).toBeNull();
    expect(outsideWindow(window, 0, new Date(60_000))).toBe('late');
    expect(outsideWindow(window, 3, new Date(0))).toBe('count');
    expect(outsideWindow(window, 3, new Date(60_000))).toBe('late');
  });
});

describe('a step in its trigger’s window', () => {
  // One row per case: kind, step index, offset → where it falls.
  const cases: [string, Parameters<typeof stepOutsideWindow>[1], number, number, 'late' | 'count' | null][] =
    [
      ['a follow’s first step at once', 'subscribe', 0, 0, null],
      ['a follow’s step just before its minute ends', 'subscribe', 2, MIN - 1, null],
      ['a follow’s step as its minute ends', 'subscribe', 0, MIN, 'late'],
      ['a follow’s fourth step', 'subscribe', 3, 0, 'count'],
      ['a keyword’s (message’s) fifth step after 47 h', 'message', 4, 47 * 3_600_000, null],
      ['an API or event trigger opens no window to check', null, 9, H48 * 10, null],
    ];
  it.each(cases)('%s', (_name, kind, index, offsetMs, expected) => {
    expect(stepOutsideWindow(official, kind, index, offsetMs)).toBe(expected);
  });

  it('is not checked under a policy of none', () => {
    expect(stepOutsideWindow(null, 'subscribe', 5, H48)).toBeNull();
  });

  it('can be pushed out by a delay only when it fits now and not once delayed that long', () => {
    expect(delayCanPushOut(official, 'subscribe', 0, 0, MIN)).toBe(true);
    expect(delayCanPushOut(official, 'subscribe', 0, 0, MIN - 1)).toBe(false);
    expect(delayCanPushOut(official, 'subscribe', 0, MIN, 0)).toBe(false);
    expect(delayCanPushOut(official, 'message', 1, 0, 10 * 3_600_000)).toBe(false);
    expect(delayCanPushOut(official, null, 0, 0, H48)).toBe(false);
    expect(delayCanPushOut(null, 'subscribe', 0, 0, H48)).toBe(false);
  });
});

describe('the interaction a trigger is', () => {
  it('is a message for a keyword, its own kind for a follow, scan or click, none for an API or event', () => {
    expect(triggerKind({ type: 'keyword', keyword: 'hi' })).toBe('message');
    expect(triggerKind({ type: 'subscribe' })).toBe('subscribe');
    expect(triggerKind({ type: 'click', key: 'k' })).toBe('click');
    expect(triggerKind({ type: 'api' })).toBeNull();
    expect(triggerKind({ type: 'event', name: 'paid' })).toBeNull();
  });
});
