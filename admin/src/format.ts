import { t } from './i18n/index.js';
import type { Account } from './types.js';
import { formatOf } from './policy/quiet-hours.js';

/** Units marketing thinks in; offsets are stored in ms. */
export const UNITS = [
  { name: 'seconds', ms: 1000 },
  { name: 'minutes', ms: 60_000 },
  { name: 'hours', ms: 3_600_000 },
  { name: 'days', ms: 86_400_000 },
] as const;
export type UnitName = (typeof UNITS)[number]['name'];

export function unitMs(name: UnitName): number {
  return UNITS.find((u) => u.name === name)?.ms ?? 1000;
}

/** The largest unit that shows `ms` as a whole number (90 min stays "90 minutes", not "1.5 hours"). */
export function bestUnit(ms: number): { value: number; unit: UnitName } {
  for (const u of [...UNITS].reverse()) {
    if (ms > 0 && ms % u.ms === 0) return { value: ms / u.ms, unit: u.name };
  }
  return { value: Math.round(ms / 1000), unit: 'seconds' };
}

/** 90_000 → "1分钟30秒" / "1 min 30 s" (the two largest parts). */
export function duration(ms: number): string {
  const { time } = t();
  if (ms < 1000) return time.amount(Math.round(ms), time.short.ms);
  const parts: string[] = [];
  let rest = ms;
  for (const [size, unit] of [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ] as const) {
    if (rest >= size) {
      parts.push(time.amount(Math.floor(rest / size), time.short[unit]));
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(time.joiner);
}

/** "+1 min" for a step offset; "at once" for 0. */
export function offsetLabel(ms: number): string {
  return ms === 0 ? t().time.atOnce : `+${duration(ms)}`;
}

/** The zone dates are shown in when no account says otherwise (the API's default, WeChat's own day). */
export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';

/** The zone of the account with `appId` among `accounts`, else the default. */
export function zoneOf(accounts: readonly Account[], appId: string | undefined): string {
  return accounts.find((a) => a.appId === appId)?.timeZone ?? DEFAULT_TIME_ZONE;
}

/** A moment's wall-clock parts in `timeZone`, 24-hour, zero-padded; the same in every language. */
function wallClock(at: Date, timeZone: string): Record<'date' | 'minutes' | 'seconds', string> {
  const parts = formatOf(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const minutes = `${part('hour')}:${part('minute')}`;
  return {
    date: `${part('year')}-${part('month')}-${part('day')}`,
    minutes,
    seconds: `${minutes}:${part('second')}`,
  };
}

/** "2026-11-25 21:30 (Asia/Shanghai)" (北京时间 in Chinese), or "—". */
export function when(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${dateMinutes(at, timeZone)} (${t().time.zone(timeZone)})`;
}

/** "2026-11-25 21:30", in `timeZone` (for lists whose heading names the zone). */
export function dateMinutes(at: Date, timeZone: string): string {
  const c = wallClock(at, timeZone);
  return `${c.date} ${c.minutes}`;
}

/** "21:30:05 (Asia/Shanghai)": when a live page last refreshed. */
export function clockTime(at: Date, timeZone: string): string {
  return `${wallClock(at, timeZone).seconds} (${t().time.zone(timeZone)})`;
}

/** "21:30", for a chart's axis (its legend names the zone). */
export function hourMinute(at: Date, timeZone: string): string {
  return wallClock(at, timeZone).minutes;
}

/** "in 42 s" / "3 min ago", relative to now. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const diff = new Date(iso).getTime() - now;
  const span = duration(Math.abs(diff));
  return diff >= 0 ? t().time.inFuture(span) : t().time.ago(span);
}

/** Sum of a `{reason: n}` map. */
export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
