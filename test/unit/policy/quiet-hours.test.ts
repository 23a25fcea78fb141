import { instantOf, quietHoursEnd, wallClockAt } from '../../../src/policy/quiet-hours';

const night = { start: '22:00', end: '08:00' };
const lunch = { start: '12:00', end: '13:30:15' };
const NY = 'America/New_York';
const SH = 'Asia/Shanghai';

// One row per case: quiet hours, zone, the moment, when they end (null: not inside them). The expected
// ends are what SQL quiet_hours_end (migration 0019) answers for the same arguments.
const cases: [string, { start: string; end: string } | null, string, string, string | null][] = [
  [
    'Shanghai, 23:30 local: ends the next morning',
    night,
    SH,
    '2026-01-01T15:30:00Z',
    '2026-01-02T00:00:00.000Z',
  ],
  [
    'Shanghai, 07:30 local: ends the same morning',
    night,
    SH,
    '2026-01-01T23:30:00Z',
    '2026-01-02T00:00:00.000Z',
  ],
  ['Shanghai, 11:30 local: outside', night, SH, '2026-01-01T03:30:00Z', null],
  ['the start itself is inside', night, SH, '2026-01-01T14:00:00Z', '2026-01-02T00:00:00.000Z'],
  ['a millisecond before the start is outside', night, SH, '2026-01-01T13:59:59.999Z', null],
  ['the end itself is outside', night, SH, '2026-01-02T00:00:00Z', null],
  [
    'a millisecond before the end is inside',
    night,
    SH,
    '2026-01-01T23:59:59.999Z',
    '2026-01-02T00:00:00.000Z',
  ],
  ['local midnight, crossing it', night, SH, '2026-01-01T16:00:00Z', '2026-01-02T00:00:00.000Z'],
  ['within one day, with seconds', lunch, 'UTC', '2026-05-05T12:10:00Z', '2026-05-05T13:30:15.000Z'],
  [
    'within one day, a second before its end',
    lunch,
    'UTC',
    '2026-05-05T13:30:14Z',
    '2026-05-05T13:30:15.000Z',
  ],
  ['within one day, after its end', lunch, 'UTC', '2026-05-05T13:31:00Z', null],
  ['within one day, before its start', lunch, 'UTC', '2026-05-05T11:59:59Z', null],
  ['crossing a year', night, 'UTC', '2026-12-31T23:00:00Z', '2027-01-01T08:00:00.000Z'],
  ['no quiet hours', null, 'UTC', '2026-05-05T12:10:00Z', null],
  [
    'a start equal to the end is no span',
    { start: '08:00', end: '08:00:00' },
    'UTC',
    '2026-05-05T08:00:00Z',
    null,
  ],
  ['New York in winter (EST)', night, NY, '2026-01-15T05:30:00Z', '2026-01-15T13:00:00.000Z'],
  [
    'New York the night DST starts, after the change (EDT)',
    night,
    NY,
    '2026-03-08T05:30:00Z',
    '2026-03-08T12:00:00.000Z',
  ],
  [
    'New York the eve DST starts: 23:00 EST, ends 08:00 EDT',
    night,
    NY,
    '2026-03-08T04:00:00Z',
    '2026-03-08T12:00:00.000Z',
  ],
  [
    'an end the clock skips (02:30) takes the offset before the change',
    { start: '01:00', end: '02:30' },
    NY,
    '2026-03-08T06:10:00Z',
    '2026-03-08T07:30:00.000Z',
  ],
  [
    'New York the eve DST ends: 23:30 EDT, ends 08:00 EST',
    night,
    NY,
    '2026-11-01T03:30:00Z',
    '2026-11-01T13:00:00.000Z',
  ],
  [
    'an end the clock shows twice (01:30) is the later one, from the first 01:10',
    { start: '00:30', end: '01:30' },
    NY,
    '2026-11-01T05:10:00Z',
    '2026-11-01T06:30:00.000Z',
  ],
  [
    'an end the clock shows twice, from the second 01:10',
    { start: '00:30', end: '01:30' },
    NY,
    '2026-11-01T06:10:00Z',
    '2026-11-01T06:30:00.000Z',
  ],
  ['New York in summer (EDT)', night, NY, '2026-07-01T03:00:00Z', '2026-07-01T12:00:00.000Z'],
];

describe('quietHoursEnd', () => {
  it.each(cases)('%s', (_name, quiet, zone, at, end) => {
    expect(quietHoursEnd(quiet, zone, new Date(at))?.toISOString() ?? null).toBe(end);
  });
});

describe('wall-clock time in a zone', () => {
  it('reads and writes a reading both ways', () => {
    const reading = { year: 2026, month: 11, day: 25, hour: 23, minute: 5, second: 9 };
    const moment = instantOf(reading, SH);
    expect(new Date(moment).toISOString()).toBe('2026-11-25T15:05:09.000Z');
    expect(wallClockAt(moment, SH)).toEqual(reading);
  });
});
