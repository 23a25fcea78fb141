import type { QuietHours } from '../contract';
import { effectiveQuietHours, quietSpanMs } from '../policy/quiet-hours';
import { delayCanPushOut, type WindowPolicy } from '../policy/window-rule';
import { journeyShape } from '../policy/journey-plan';
import { placeSteps } from './journey-windows';
import type { IssueDetail } from '../validation';
import { describeRule, formatDuration } from '../wechat/window-policy';
import type { SequenceDefinition } from './sequence-schema';

/** The account settings the quiet hours of a sequence depend on. */
export interface QuietHoursAccount {
  readonly quietHours: QuietHours | null;
  readonly timeZone: string;
  readonly windowPolicy: WindowPolicy;
}

/**
 * The save-time check of quiet hours: a step (or variant) without a fallback that the quiet hours can move
 * past its contact window — at worst it falls due as they start and waits their whole span — is skipped
 * `quiet_hours` whenever that happens. Such steps are warned about, not refused: a welcome step on a
 * follow (a 1-minute window) would otherwise be refused under any quiet hours. Steps already outside the
 * window are refused by the window check itself; an `event` or `api` trigger opens no window to check.
 * Every path's steps are checked, each in the window its path is planned in.
 */
export function quietHoursWarnings(d: SequenceDefinition, account: QuietHoursAccount): IssueDetail[] {
  const quiet = effectiveQuietHours(d.quietHours, account.quietHours);
  if (!quiet) return [];
  const spanMs = quietSpanMs(quiet);
  const source = d.quietHours ? 'the sequence’s quiet hours' : 'the account’s default quiet hours';
  return placeSteps(d.trigger, journeyShape(d)).flatMap(({ step, at: stepAt, label, window }) => {
    const rule = window && account.windowPolicy?.[window.kind];
    if (!window || !rule) return [];
    if (!delayCanPushOut(account.windowPolicy, window.kind, window.index, window.sinceMs, spanMs)) return [];
    const contents = step.variants
      ? step.variants.map((v, j) => ({ at: `${stepAt}.variants.${j}`, fallback: v.fallback }))
      : [{ at: stepAt, fallback: step.fallback ?? null }];
    return contents
      .filter((c) => c.fallback === null)
      .map(({ at }) => ({
        path: at,
        message:
          `${label}: ${source} ` +
          `${quiet.start}–${quiet.end} (${account.timeZone}) can move it by up to ${formatDuration(spanMs)}, ` +
          `past its contact window (${describeRule(window.kind, rule)}); a follower it falls due for in them gets ` +
          `nothing (skipped quiet_hours). Add a fallback, or turn quiet hours off for this sequence.`,
        rule: {
          kind: 'quiet_hours_push',
          source: d.quietHours ? 'sequence' : 'account',
          start: quiet.start,
          end: quiet.end,
          timeZone: account.timeZone,
          spanMs,
          interaction: window.kind,
          count: rule.count,
          windowMs: rule.windowMs,
        },
      }));
  });
}
