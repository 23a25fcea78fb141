import { quietHoursWarnings } from '../../../src/sequences/quiet-hours-warnings';
import { parseSequenceDefinition } from '../../../src/sequences/sequence-schema';
import { WINDOW_PRESETS } from '../../../src/wechat/window-policy';

const APP = 'wx0123456789abcdef';
const text = (content: string) => ({ msgtype: 'text', text: { content } });
const fallback = { template_id: 'tpl', data: { first: { value: 'hi' } } };
const night = { start: '22:00', end: '08:00' };
const account = { quietHours: night, timeZone: 'Asia/Shanghai', windowPolicy: WINDOW_PRESETS.official };

const definition = (fields: Record<string, unknown>) =>
  parseSequenceDefinition(
    {
      appId: APP,
      name: 'welcome',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 0, message: text('hi') }],
      ...fields,
    },
    () => WINDOW_PRESETS.official,
  );

describe('quietHoursWarnings (save-time feasibility)', () => {
  it('warns of a step without fallback that quiet hours can push past its window (a welcome after a follow)', () => {
    const [warning] = quietHoursWarnings(definition({}), account);
    expect(warning.path).toBe('steps.0');
    expect(warning.message).toContain('22:00–08:00 (Asia/Shanghai)');
    expect(warning.message).toContain('10 h');
    expect(warning.message).toContain('skipped quiet_hours');
  });

  it('does not warn of a step with a fallback, of a sequence that turned quiet hours off, or without any', () => {
    expect(
      quietHoursWarnings(definition({ steps: [{ offsetMs: 0, message: text('hi'), fallback }] }), account),
    ).toEqual([]);
    expect(quietHoursWarnings(definition({ quietHours: false }), account)).toEqual([]);
    expect(quietHoursWarnings(definition({}), { ...account, quietHours: null })).toEqual([]);
  });

  it('warns when the span fits only part of the window, per A/B variant without fallback', () => {
    const trigger = { type: 'keyword', keyword: '课程' };
    const long = { start: '00:00', end: '23:00' };
    const steps = [
      {
        offsetMs: 86_400_000,
        variants: [
          { name: 'A', weight: 1, message: text('a') },
          { name: 'B', weight: 1, message: text('b'), fallback },
        ],
      },
    ];
    // A 48 h window: 24 h + 23 h of quiet hours still fits; with 25 h of offset it does not.
    expect(quietHoursWarnings(definition({ trigger, steps, quietHours: long }), account)).toEqual([]);
    steps[0].offsetMs = 90_000_000;
    expect(
      quietHoursWarnings(definition({ trigger, steps, quietHours: long }), account).map((w) => w.path),
    ).toEqual(['steps.0.variants.0']);
  });

  it('does not warn for a trigger that opens no window (api, event)', () => {
    expect(quietHoursWarnings(definition({ trigger: { type: 'api' } }), account)).toEqual([]);
  });
});
