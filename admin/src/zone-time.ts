/**
 * Wall-clock time in an IANA zone, both ways, with the browser's own time zone database (Intl): what a
 * moment reads on a clock in the zone, and which moment a clock reading in the zone is.
 */

/** A clock reading: month 1–12, hour 0–23. */
export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** A 24-hour, zero-padded, all-numeric format of `zone`'s wall clock (en-GB: the same in every language). */
export function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(zone, f);
  }
  return f;
}

/** What a clock in `zone` reads at the moment `at` (ms since the epoch). */
export function wallClockAt(at: number, zone: string): WallClock {
  const parts = formatOf(zone).formatToParts(at);
  const n = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: n('year'),
    month: n('month'),
    day: n('day'),
    hour: n('hour'),
    minute: n('minute'),
    second: n('second'),
  };
}

/** The reading as if it were UTC, in ms: the zone's offset at a moment is this minus the moment. */
const asUtc = (c: WallClock): number => Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
/** The zone's offset from UTC at `at`, in ms (whole seconds). */
const offsetAt = (at: number, zone: string): number =>
  asUtc(wallClockAt(at, zone)) - Math.floor(at / 1000) * 1000;

/**
 * The moment a clock in `zone` reads `c`. A reading the clock skips (a DST gap) is taken with the offset
 * before the change, as PostgreSQL takes it (02:30 on the day New York springs forward is 03:30 EDT); of a
 * reading it shows twice (fall back), one of the two.
 */
export function instantOf(c: WallClock, zone: string): number {
  const local = asUtc(c);
  const guess = offsetAt(local, zone);
  const first = local - guess;
  const offset = offsetAt(first, zone);
  if (offset === guess) return first;
  const second = local - offset;
  if (offsetAt(second, zone) === offset) return second;
  return local - offsetAt(Math.min(first, second), zone);
}
