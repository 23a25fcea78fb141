import { h, s } from './dom.js';
import { hourMinute, when } from './format.js';
import { t } from './i18n/index.js';
import type { SeriesPoint } from './types.js';

// About the width it is shown at on a laptop, so the 11 px labels are not scaled up.
const W = 1100;
const H = 220;
const LEFT = 40;
const BOTTOM = 28;
const TOP = 12;
const SERIES = ['sent', 'skipped', 'failed'] as const;

/** A round axis maximum (1, 2, 5 × 10^n) so the gridlines fall on readable numbers. */
function niceMax(n: number): number {
  if (n <= 5) return 5;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= n) ?? 10 * p;
}

/** The axis spans at least the last hour, so a first burst of activity does not fill the whole width. */
const MIN_SPAN_MS = 3600_000;

/**
 * Outcomes per minute as stacked bars (sent, skipped, failed), from the first bucket the API returned
 * (minutes with activity in the last 24 h) or an hour ago, whichever is earlier, to now; times in
 * `timeZone`, which the legend names.
 */
export function outcomesChart(
  series: readonly SeriesPoint[],
  timeZone: string,
  now = Date.now(),
): HTMLElement {
  const words = t().chart;
  if (series.length === 0) return h('p', { class: 'muted chart-empty' }, words.empty);
  const times = series.map((p) => new Date(p.at).getTime());
  const last = Math.max(now, ...times) + 60_000;
  const first = Math.min(last - MIN_SPAN_MS, ...times);
  const max = niceMax(Math.max(...series.map((p) => p.sent + p.skipped + p.failed)));
  const plotW = W - LEFT - 8;
  const plotH = H - TOP - BOTTOM;
  const x = (t: number) => LEFT + ((t - first) / (last - first)) * plotW;
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  const barW = Math.max(2, Math.min(24, (plotW * 60_000) / (last - first) - 1));

  const grid = [0, max / 2, max]
    .filter(Number.isInteger)
    .map((v) =>
      s(
        'g',
        {},
        s('line', { x1: LEFT, x2: W - 8, y1: y(v), y2: y(v), class: 'grid' }),
        s('text', { x: LEFT - 6, y: y(v) + 4, class: 'tick end' }, String(v)),
      ),
    );
  const bars = series.map((p, i) => {
    let base = 0;
    return s(
      'g',
      { class: 'bar' },
      s('title', {}, words.bar(when(p.at, timeZone), p.sent, p.skipped, p.failed)),
      SERIES.map((key) => {
        const v = p[key];
        const rect = s('rect', {
          x: x(times[i]),
          y: y(base + v),
          width: barW,
          height: Math.max(0, y(base) - y(base + v)),
          class: `fill-${key}`,
        });
        base += v;
        return rect;
      }),
    );
  });
  const labels = [first, (first + last) / 2, last].map((at, i) =>
    s(
      'text',
      { x: x(at), y: H - 8, class: `tick ${['start', 'middle', 'end'][i]}` },
      hourMinute(new Date(at), timeZone),
    ),
  );
  return h(
    'figure',
    { class: 'chart' },
    s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': words.label }, grid, bars, labels),
    h(
      'figcaption',
      { class: 'legend small' },
      SERIES.map((key) => h('span', { class: `key key-${key}` }, words.series[key])),
      h('span', { class: 'muted note' }, words.perMinute(timeZone)),
    ),
  );
}

/** One step's outcomes as a horizontal stacked bar, proportional to what was scheduled. */
export function stepBar(parts: readonly { key: string; n: number }[]): SVGElement {
  const sum = parts.reduce((a, p) => a + p.n, 0);
  let at = 0;
  return s(
    'svg',
    { viewBox: '0 0 120 10', class: 'step-bar', 'aria-hidden': 'true', preserveAspectRatio: 'none' },
    sum === 0
      ? s('rect', { x: 0, y: 0, width: 120, height: 10, class: 'fill-empty' })
      : parts.map((p) => {
          const w = (p.n / sum) * 120;
          const rect = s('rect', { x: at, y: 0, width: w, height: 10, class: `fill-${p.key}` });
          at += w;
          return rect;
        }),
  );
}
