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

/** 90_000 → "1 min 30 s" (the API words durations the same way in its messages). */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const parts: string[] = [];
  let rest = ms;
  for (const [size, name] of [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(' ');
}

/** "+1 min" for a step offset; "at once" for 0. */
export function offsetLabel(ms: number): string {
  return ms === 0 ? 'at once' : `+${duration(ms)}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A local date and time, or "—". */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** "in 42 s" / "3 min ago", relative to now. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const diff = new Date(iso).getTime() - now;
  const text = duration(Math.abs(diff));
  return diff >= 0 ? `in ${text}` : `${text} ago`;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Sum of a `{reason: n}` map. */
export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
