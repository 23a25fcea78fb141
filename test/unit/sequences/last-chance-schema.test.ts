import { parseSequenceDefinition } from '../../../src/sequences/sequence-schema';
import { lastChanceDue } from '../../../src/sequences/plan-path';
import { WINDOW_PRESETS } from '../../../src/wechat/window-policy';
import { definitionRefusal } from '../../helpers/definition-refusal';

const APP = 'wx0123456789abcdef';
const NO_POLICY = 'wx00000000000nopol';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const policyOf = (appId: string) =>
  appId === APP ? WINDOW_PRESETS.official : appId === NO_POLICY ? WINDOW_PRESETS.none : undefined;
const text = (content: string) => ({ msgtype: 'text', text: { content } });
const template = { template_id: 'TPL', data: { thing1: { value: '还在吗' } } };
const lastChance = (beforeWindowCloseMs: number, extra: Record<string, unknown> = {}) => ({
  beforeWindowCloseMs,
  message: text('优惠今晚截止'),
  ...extra,
});

/** Someone writes 课程: the answer now, and a last word 30 minutes before their 48-hour window closes. */
const aSequence = (overrides: Record<string, unknown> = {}) => ({
  appId: APP,
  name: 'course',
  trigger: { type: 'keyword', keyword: '课程' },
  steps: [{ offsetMs: 0, message: text('课程表') }, lastChance(30 * MINUTE)],
  ...overrides,
});
const refusal = (input: unknown) => definitionRefusal(input, policyOf);

describe('parseSequenceDefinition: the window’s last chance', () => {
  it('keeps a last-chance step (offset 0) within a user message’s 48-hour window', () => {
    const d = parseSequenceDefinition(aSequence(), policyOf);
    expect(d.steps[1]).toEqual({
      offsetMs: 0,
      beforeWindowCloseMs: 30 * MINUTE,
      message: text('优惠今晚截止'),
      fallback: null,
    });
    expect(d.steps[0]).not.toHaveProperty('beforeWindowCloseMs');
  });

  it('accepts one on a yes path after a reply, and on a no path that continues the reply’s window', () => {
    const journey = aSequence({
      trigger: { type: 'keyword', keyword: '课程' },
      steps: [{ offsetMs: 0, message: text('回复 1 报名') }],
      wait: { until: { type: 'message', keyword: '1' }, timeoutMs: 24 * HOUR, yes: 'joined', no: 'quiet' },
      paths: {
        joined: { steps: [{ offsetMs: 0, message: text('已报名') }, lastChance(HOUR)] },
        quiet: { steps: [lastChance(2 * HOUR)] },
      },
    });
    const d = parseSequenceDefinition(journey, policyOf);
    expect(d.paths.quiet.steps[0].beforeWindowCloseMs).toBe(2 * HOUR);
  });

  it.each([
    ['an api trigger', { trigger: { type: 'api' } }, 'steps.1.beforeWindowCloseMs', /has none to refer to/],
    ['an event trigger', { trigger: { type: 'event', name: 'paid' } }, 'steps.1.beforeWindowCloseMs', /none/],
    [
      'a follow’s 1-minute window',
      { trigger: { type: 'subscribe' } },
      'steps.1.beforeWindowCloseMs',
      /a follow allows 3 messages within 1 min, so 30 min before it closes is before it opens/,
    ],
    [
      'an account whose policy checks no window',
      { appId: NO_POLICY },
      'steps.1.beforeWindowCloseMs',
      /window policy checks none/,
    ],
    [
      'both an offset and a lead',
      { steps: [{ offsetMs: 0, message: text('a') }, lastChance(30 * MINUTE, { offsetMs: HOUR })] },
      'steps.1.offsetMs',
      /leave offsetMs out or 0/,
    ],
    [
      'neither an offset nor a lead',
      { steps: [{ message: text('a') }] },
      'steps.0.offsetMs',
      /needs offsetMs/,
    ],
    [
      'a lead under a second',
      { steps: [lastChance(500)] },
      'steps.0.beforeWindowCloseMs',
      /must be at least 1000/,
    ],
    [
      'a timed step after a last-chance one',
      { steps: [lastChance(HOUR), { offsetMs: 0, message: text('b') }] },
      'steps.1.offsetMs',
      /come last on their path/,
    ],
    [
      'last-chance steps out of order',
      { steps: [lastChance(HOUR), lastChance(2 * HOUR)] },
      'steps.1.beforeWindowCloseMs',
      /goes out earlier than the one before/,
    ],
  ])('refuses %s, naming the field', (_what, overrides, path, message) => {
    expect(refusal(aSequence(overrides))).toEqual(
      expect.arrayContaining([{ path, message: expect.stringMatching(message) }]),
    );
  });

  it('refuses one on a path that goes on to a wait, and on the yes path of a posted event', () => {
    const journey = aSequence({
      steps: [{ offsetMs: 0, message: text('a') }, lastChance(HOUR)],
      wait: { until: { type: 'event', name: 'paid' }, timeoutMs: HOUR, yes: 'paid', no: null },
      paths: { paid: { steps: [lastChance(HOUR)] } },
    });
    expect(refusal(journey)).toEqual([
      { path: 'steps.1.beforeWindowCloseMs', message: expect.stringMatching(/goes on to a wait/) },
    ]);
    journey.steps = [{ offsetMs: 0, message: text('a') }];
    expect(refusal(journey)).toEqual([
      {
        path: 'paths.paid.steps.0.beforeWindowCloseMs',
        message: expect.stringMatching(/^step 1 of path paid 1 h before the window closes is timed by/),
      },
    ]);
  });

  it('counts it in its window: a sixth message in a user message’s window needs a fallback', () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ offsetMs: i * 1000, message: text(`m${i}`) }));
    const steps = [...five, lastChance(30 * MINUTE)];
    expect(refusal(aSequence({ steps }))).toEqual([
      {
        path: 'steps.5',
        message: expect.stringMatching(/^step 6 30 min before the window closes would be message 6/),
      },
    ]);
    steps[5] = lastChance(30 * MINUTE, { fallback: template });
    expect(() => parseSequenceDefinition(aSequence({ steps }), policyOf)).not.toThrow();
  });

  it('needs a fallback on a no path that starts after its window closed', () => {
    const journey = aSequence({
      steps: [{ offsetMs: 0, message: text('回复 1') }],
      wait: { until: { type: 'message' }, timeoutMs: 49 * HOUR, yes: 'wrote', no: 'late' },
      paths: {
        wrote: { steps: [{ offsetMs: 0, message: text('谢谢') }] },
        late: { steps: [lastChance(HOUR)] },
      },
    });
    expect(refusal(journey)).toEqual([
      { path: 'paths.late.steps.0', message: expect.stringMatching(/falls outside the contact window/) },
    ]);
  });
});

describe('lastChanceDue', () => {
  const from = new Date('2026-11-28T10:00:00Z');
  it('is the lead before the window’s end, never before the path starts, and the start without a window', () => {
    expect(lastChanceDue(from, new Date('2026-11-30T10:00:00Z'), 30 * MINUTE).toISOString()).toBe(
      '2026-11-30T09:30:00.000Z',
    );
    expect(lastChanceDue(from, new Date('2026-11-28T10:10:00Z'), 30 * MINUTE)).toEqual(from);
    expect(lastChanceDue(from, null, 30 * MINUTE)).toEqual(from);
  });
});
