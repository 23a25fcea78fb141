import type { Wait } from '../../src/contract';
import type { JourneyShape, PathLike } from '../../src/policy/journey-plan';

export const HOUR = 3_600_000;

/** A wait for any reply: `yes` on it, `no` at its timeout. */
export const aReplyWait = (yes: string, no: string | null = null, timeoutMs = 24 * HOUR): Wait => ({
  until: { type: 'message' },
  timeoutMs,
  yes,
  no,
});

/** A path of steps at these offsets, ended by `wait`. */
export const aPath = (offsets: number[], wait?: Wait): PathLike => ({
  steps: offsets.map((offsetMs) => ({ offsetMs })),
  ...(wait ? { wait } : {}),
});

/** main → (reply) replied → (click) clicked | ignored; main → (timeout) silent. */
export const aTwoLevelJourney = (): JourneyShape => ({
  main: aPath([0, HOUR], aReplyWait('replied', 'silent')),
  paths: {
    silent: aPath([0]),
    replied: aPath([0, 60_000], {
      until: { type: 'click', key: 'BUY' },
      timeoutMs: HOUR,
      yes: 'clicked',
      no: 'ignored',
    }),
    clicked: aPath([0]),
    ignored: aPath([HOUR]),
  },
});
