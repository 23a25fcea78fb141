import { z } from 'zod';

/** A time of day as quiet hours take it: HH:MM or HH:MM:SS, 00:00 to 23:59:59. */
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;

/** Seconds since midnight of a valid HH:MM[:SS] ("08:00" and "08:00:00" are the same time). */
export function secondsOfDay(time: string): number {
  const [h, m, s = 0] = time.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

const timeOfDaySchema = z
  .string()
  .regex(TIME_OF_DAY, 'must be a time of day, HH:MM or HH:MM:SS (00:00 to 23:59:59)');

/**
 * Quiet hours: a daily span, in the account's time zone, in which no sequence step goes out (a step due in
 * it goes out at `end`, or on its fallback then, or is skipped `quiet_hours`). `end` before `start` crosses
 * midnight (22:00–08:00); the same time for both is refused (it would be no span, or the whole day).
 */
export const quietHoursSchema = z
  .object({ start: timeOfDaySchema, end: timeOfDaySchema })
  .strict()
  .refine(
    (q) =>
      !TIME_OF_DAY.test(q.start) || !TIME_OF_DAY.test(q.end) || secondsOfDay(q.start) !== secondsOfDay(q.end),
    {
      message: 'start and end are the same time: give a span (an end before the start crosses midnight)',
      path: ['end'],
      params: { rule: 'same_time' },
    },
  );

/**
 * A sequence's quiet hours: its own span, `false` for none even if the account has a default, or absent
 * (null in answers) for the account's default.
 */
export const sequenceQuietHoursSchema = z.union([quietHoursSchema, z.literal(false)]);

/** A warning in a 200/201 answer: the request was carried out, but this is worth knowing. */
export const warningSchema = z.object({ path: z.string(), message: z.string() });

export type QuietHours = z.output<typeof quietHoursSchema>;
export type SequenceQuietHours = z.output<typeof sequenceQuietHoursSchema>;
