import { type QuietHours, secondsOfDay } from '../contract';
import type { IssueDetail } from '../validation';
import { describeRule, formatDuration, type WindowPolicy } from '../wechat/window-policy';
import { type SequenceDefinition, triggerKind } from './sequence-schema';

/** The account settings the quiet hours of a sequence depend on. */
export interface QuietHoursAccount {
  readonly quietHours: QuietHours | null;
  readonly timeZone: string;
  readonly windowPolicy: WindowPolicy;
}

/** The quiet hours that apply to a sequence's steps: its own, none (`false`), or its account's default. */
export function effectiveQuietHours(
  d: Pick<SequenceDefinition, 'quietHours'>,
  accountDefault: QuietHours | null,
): QuietHours | null {
  if (d.quietHours === false) return null;
  return d.quietHours ?? accountDefault;
}

/** How long the quiet hours last, in ms (22:00–08:00 → 10 h; end before start crosses midnight). */
export function quietSpanMs(q: QuietHours): number {
  const spanS = (secondsOfDay(q.end) - secondsOfDay(q.start) + 86_400) % 86_400;
  return spanS * 1000;
}

/**
 * The save-time check of quiet hours: a step (or variant) without a fallback that the quiet hours can move
 * past its contact window — at worst it falls due as they start and waits their whole span — is skipped
 * `quiet_hours` whenever that happens. Such steps are warned about, not refused: a welcome step on a
 * follow (a 1-minute window) would otherwise be refused under any quiet hours. Steps already outside the
 * window are refused by the window check itself; an `event` or `api` trigger opens no window to check.
 */
export function quietHoursWarnings(d: SequenceDefinition, account: QuietHoursAccount): IssueDetail[] {
  const quiet = effectiveQuietHours(d, account.quietHours);
  const kind = triggerKind(d.trigger);
  const rule = kind && account.windowPolicy?.[kind];
  if (!quiet || !kind || !rule) return [];
  const spanMs = quietSpanMs(quiet);
  const source = d.quietHours ? 'the sequence’s quiet hours' : 'the account’s default quiet hours';
  return d.steps.flatMap((step, i) => {
    if (step.offsetMs >= rule.windowMs || i >= rule.count || step.offsetMs + spanMs < rule.windowMs)
      return [];
    const contents = step.variants
      ? step.variants.map((v, j) => ({ at: `steps.${i}.variants.${j}`, fallback: v.fallback }))
      : [{ at: `steps.${i}`, fallback: step.fallback ?? null }];
    return contents
      .filter((c) => c.fallback === null)
      .map(({ at }) => ({
        path: at,
        message:
          `step ${i + 1} at +${formatDuration(step.offsetMs) || '0 s'}: ${source} ` +
          `${quiet.start}–${quiet.end} (${account.timeZone}) can move it by up to ${formatDuration(spanMs)}, ` +
          `past its contact window (${describeRule(kind, rule)}); a follower it falls due for in them gets ` +
          `nothing (skipped quiet_hours). Add a fallback, or turn quiet hours off for this sequence.`,
      }));
  });
}
