import { z } from 'zod';

/** Milliseconds per unit of a duration written with one (`30d`, `12h`, `15m`, `10s`, `250ms`). */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The values that switch a feature with a duration off. */
const OFF = ['0', 'off'];

/** `text` in ms when it is a whole number with a unit, or without one (ms, like the `…_MS` variables). */
function toMs(text: string): number | null {
  const match = /^(\d{1,15})\s*(ms|s|m|h|d)?$/.exec(text);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] ?? 'ms'] : NaN;
  return Number.isSafeInteger(ms) ? ms : null;
}

function checked(text: string, ctx: z.RefinementCtx, minMs: number, orOff: string): number {
  const ms = toMs(text);
  if (ms !== null && ms >= minMs) return ms;
  ctx.addIssue({
    code: 'custom',
    message: `must be a duration of at least ${minMs} ms such as 30d, 12h, 15m, 90s or 500ms${orOff}`,
  });
  return 0;
}

/**
 * A duration in ms from an environment variable (`30d`, `90s`, `500ms`, or plain ms); a default is written
 * the same way (`.prefault('60s')`), and parsed like a value that was set.
 */
export const duration = (minMs = 1) =>
  z
    .string()
    .trim()
    .transform((text, ctx) => checked(text, ctx, minMs, ''));

/** `duration`, or null for `0` / `off`: the feature it times is disabled. */
export const durationOrOff = (minMs = 1) =>
  z
    .string()
    .trim()
    .transform((text, ctx) =>
      OFF.includes(text.toLowerCase()) ? null : checked(text, ctx, minMs, ', or 0 / off to disable'),
    );
