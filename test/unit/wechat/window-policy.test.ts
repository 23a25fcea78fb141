import { describeRule, formatDuration, WINDOW_PRESETS } from '../../../src/wechat/window-policy';

describe('window policy presets', () => {
  it('encode the official table: user message 5 / 48 h, follow, scan and click 3 / 1 min', () => {
    expect(WINDOW_PRESETS.official).toEqual({
      message: { count: 5, windowMs: 172_800_000 },
      subscribe: { count: 3, windowMs: 60_000 },
      scan: { count: 3, windowMs: 60_000 },
      click: { count: 3, windowMs: 60_000 },
    });
    expect(WINDOW_PRESETS['legacy-48h']!.subscribe).toEqual({ count: 20, windowMs: 172_800_000 });
    expect(WINDOW_PRESETS.none).toBeNull();
  });

  it('describes a rule and a duration in words marketing reads', () => {
    expect(describeRule('subscribe', { count: 3, windowMs: 60_000 })).toBe(
      'a follow allows 3 messages within 1 min',
    );
    expect(formatDuration(2 * 3600_000 + 90_000)).toBe('2 h 1 min 30 s');
  });
});
