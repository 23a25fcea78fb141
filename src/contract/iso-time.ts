/**
 * An ISO 8601 instant with an explicit offset, its fields captured: a time without a zone would be
 * guessed, so the pattern refuses it.
 */
export const ISO_WITH_ZONE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/**
 * Whether `s` matches ISO_WITH_ZONE and names a time that exists: month 1–12, a day the month has (29
 * February only in leap years), hour 0–23, minute and second 0–59, offset up to 23:59. `Date.parse` alone
 * is not enough: it rolls 31 February over into March.
 */
export function isCalendarTime(s: string): boolean {
  const m = ISO_WITH_ZONE.exec(s);
  if (!m) return false;
  // Read field by field, not through an array of them: every batch line's time passes here.
  const part = (i: number) => Number(m[i] ?? 0);
  const [year, month, day, hour, minute] = [part(1), part(2), part(3), part(4), part(5)];
  const [second, offsetHours, offsetMinutes] = [part(6), part(7), part(8)];
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
}
