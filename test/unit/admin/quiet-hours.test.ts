import { effectiveQuietHours, quietEnd, quietSpanMs } from '../../../admin/src/quiet-hours';
import { instantOf, wallClockAt } from '../../../admin/src/zone-time';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const night = { start: '22:00', end: '08:00' };

// The editor's preview of quiet hours: the same cases as the claim's SQL (test/integration/store/quiet-hours).
describe('quietEnd (the editor’s time math)', () => {
  it('ends quiet hours that cross midnight on the next local day, or the same one after midnight', () => {
    expect(iso(quietEnd(night, 'Asia/Shanghai', at('2026-01-01T15:30:00Z')))).toBe(
      '2026-01-02T00:00:00.000Z',
    );
    expect(iso(quietEnd(night, 'Asia/Shanghai', at('2026-01-01T23:30:00Z')))).toBe(
      '2026-01-02T00:00:00.000Z',
    );
    expect(quietEnd(night, 'Asia/Shanghai', at('2026-01-01T03:30:00Z'))).toBeNull();
    expect(quietEnd(night, 'Asia/Shanghai', at('2026-01-02T00:00:00Z'))).toBeNull();
    expect(iso(quietEnd(night, 'Asia/Shanghai', at('2026-01-01T14:00:00Z')))).toBe(
      '2026-01-02T00:00:00.000Z',
    );
  });

  it('handles quiet hours within one day and with seconds, in UTC and on the last day of a month', () => {
    const lunch = { start: '12:00', end: '13:30:15' };
    expect(iso(quietEnd(lunch, 'UTC', at('2026-05-05T12:10:00Z')))).toBe('2026-05-05T13:30:15.000Z');
    expect(quietEnd(lunch, 'UTC', at('2026-05-05T13:31:00Z'))).toBeNull();
    expect(iso(quietEnd(night, 'UTC', at('2026-12-31T23:00:00Z')))).toBe('2027-01-01T08:00:00.000Z');
  });

  it('follows the zone’s offset on the day of the end: America/New_York before and after DST starts', () => {
    const ny = 'America/New_York';
    expect(iso(quietEnd(night, ny, at('2026-01-15T05:30:00Z')))).toBe('2026-01-15T13:00:00.000Z');
    expect(iso(quietEnd(night, ny, at('2026-03-08T05:30:00Z')))).toBe('2026-03-08T12:00:00.000Z');
    expect(iso(quietEnd(night, ny, at('2026-03-08T04:00:00Z')))).toBe('2026-03-08T12:00:00.000Z');
    // An end the clock skips (02:30 that morning) is read with the offset before the change, as PostgreSQL does.
    expect(iso(quietEnd({ start: '01:00', end: '02:30' }, ny, at('2026-03-08T06:10:00Z')))).toBe(
      '2026-03-08T07:30:00.000Z',
    );
  });

  it('reads and writes wall-clock times both ways', () => {
    const reading = { year: 2026, month: 11, day: 25, hour: 23, minute: 5, second: 9 };
    const moment = instantOf(reading, 'Asia/Shanghai');
    expect(iso(moment)).toBe('2026-11-25T15:05:09.000Z');
    expect(wallClockAt(moment, 'Asia/Shanghai')).toEqual(reading);
  });
});

describe('quiet hours of a sequence', () => {
  it('are its own, none when turned off, else its account’s default; they last from start to end', () => {
    const own = { start: '12:00', end: '13:00' };
    expect(effectiveQuietHours(own, night)).toBe(own);
    expect(effectiveQuietHours(false, night)).toBeNull();
    expect(effectiveQuietHours(null, night)).toBe(night);
    expect(quietSpanMs(night)).toBe(10 * 3_600_000);
    expect(quietSpanMs({ start: '23:59:30', end: '00:00:15' })).toBe(45_000);
  });
});
