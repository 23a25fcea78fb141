/**
 * Quiet hours: a daily span of wall-clock time in an account's IANA zone in which no sequence step goes out.
 * Pure TypeScript with the runtime's own time zone database (Intl), no imports: the worker's claim, the
 * save-time warnings and the admin page (in the browser, as an ES module) all load this one file.
 */

/** Quiet hours as the API takes them: HH:MM or HH:MM:SS; an end before the start crosses midnight. */
export interface QuietHours {
  readonly start: string;
  readonly end: string;
}

/** A clock reading: month 1–12, hour 0–23. */
export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const DAY_MS = 86_400_000;

/** Seconds since midnight of "HH:MM" or "HH:MM:SS". */
export function secondsOfDay(time: string): number {
  const [h, m, s = 0] = time.split(':').map(Number);
  return h * 3600 + m * 60 + s;
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
 * The moment a clock in `zone` reads `c`, as PostgreSQL's `timestamp AT TIME ZONE` takes it: a reading the
 * clock shows twice (fall back) is the later of the two moments, one it skips (a DST gap) is read with the
 * offset before the change (02:30 on the day New York springs forward is 03:30 EDT) — the later moment
 * again. The offsets a day either side stand for those before and after any change near the reading.
 */
export function instantOf(c: WallClock, zone: string): number {
  const local = asUtc(c);
  const candidates = [offsetAt(local - DAY_MS, zone), offsetAt(local + DAY_MS, zone)].map((o) => local - o);
  const valid = candidates.filter((at) => asUtc(wallClockAt(at, zone)) === local);
  return Math.max(...(valid.length ? valid : candidates));
}

/**
 * When the quiet hours `quiet` (times of day in `timeZone`) that contain the moment `at` end; null when `at`
 * is outside them or there are none. Start inclusive, end exclusive; an end before the start crosses
 * midnight; a start equal to the end is no span. The rule of SQL `quiet_hours_end` (migration 0019).
 */
export function quietHoursEnd(
  quiet: { start: string; end: string } | null,
  timeZone: string,
  at: Date,
): Date | null {
  if (!quiet) return null;
  const c = wallClockAt(at.getTime(), timeZone);
  const t = c.hour * 3600 + c.minute * 60 + c.second;
  const start = secondsOfDay(quiet.start);
  const end = secondsOfDay(quiet.end);
  const inside = start < end ? t >= start && t < end : start > end && (t >= start || t < end);
  if (!inside) return null;
  // Crossing midnight and already past the start: the end is on the next local day.
  const day = new Date(Date.UTC(c.year, c.month - 1, c.day + (start > end && t >= start ? 1 : 0)));
  return new Date(
    instantOf(
      {
        year: day.getUTCFullYear(),
        month: day.getUTCMonth() + 1,
        day: day.getUTCDate(),
        hour: Math.floor(end / 3600),
        minute: Math.floor(end / 60) % 60,
        second: end % 60,
      },
      timeZone,
    ),
  );
}
