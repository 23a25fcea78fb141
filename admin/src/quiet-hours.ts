import { instantOf, wallClockAt } from './zone-time.js';

/** Quiet hours as the API takes them: HH:MM[:SS] in the account's zone; end before start crosses midnight. */
export interface QuietHours {
  readonly start: string;
  readonly end: string;
}

/** Seconds since midnight of "HH:MM" or "HH:MM:SS". */
export function secondsOfDay(time: string): number {
  const [h, m, s = 0] = time.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

/** How long they last, in ms (22:00–08:00 → 10 h). */
export function quietSpanMs(q: QuietHours): number {
  return ((secondsOfDay(q.end) - secondsOfDay(q.start) + 86_400) % 86_400) * 1000;
}

/** The quiet hours that apply to a sequence: its own, none (`false`), or (null / absent) its account's. */
export function effectiveQuietHours(
  own: QuietHours | false | null | undefined,
  accountDefault: QuietHours | null,
): QuietHours | null {
  if (own === false) return null;
  return own ?? accountDefault;
}

/**
 * When the quiet hours `q` (in `zone`) that contain the moment `at` end, in ms; null when `at` is outside
 * them. The same rule as the claim's (quiet_hours_end in migration 0019): start inclusive, end exclusive.
 */
export function quietEnd(q: QuietHours, zone: string, at: number): number | null {
  const c = wallClockAt(at, zone);
  const t = c.hour * 3600 + c.minute * 60 + c.second;
  const start = secondsOfDay(q.start);
  const end = secondsOfDay(q.end);
  const inside = start < end ? t >= start && t < end : t >= start || t < end;
  if (!inside) return null;
  // Crossing midnight and already past the start: the end is on the next day.
  const dayAfter = start > end && t >= start ? 1 : 0;
  const day = new Date(Date.UTC(c.year, c.month - 1, c.day + dayAfter));
  return instantOf(
    {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
      hour: Math.floor(end / 3600),
      minute: Math.floor(end / 60) % 60,
      second: end % 60,
    },
    zone,
  );
}
