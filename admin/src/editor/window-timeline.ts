import { h, s } from '../dom.js';
import { duration, offsetLabel } from '../format.js';
import { t } from '../i18n/index.js';
import type { InteractionKind, WindowPolicy } from '../types.js';
import { describeRule, type Verdict } from './window-check.js';

// Drawn at about the size it is shown in the editor's side column, so 11 px text stays 11 px.
const W = 380;
const H = 92;
const PAD = 14;
const BAND_TOP = 20;
const AXIS_Y = 64;
const TICKS_MS = [0, 10e3, 60e3, 600e3, 3600e3, 6 * 3600e3, 86400e3, 2 * 86400e3, 7 * 86400e3, 30 * 86400e3];

/**
 * The window drawn on a timeline with each step as a marker. The scale is logarithmic so that a 1-minute
 * window and a step 2 days later both stay readable on one line. `kind` null: an API event, no window.
 */
export function windowTimeline(
  verdicts: readonly Verdict[],
  policy: WindowPolicy,
  kind: InteractionKind | null,
  policyName: string,
): HTMLElement {
  const words = t().window;
  const rule = kind === null ? null : (policy?.[kind] ?? null);
  const maxMs = Math.max(60e3, (rule?.windowMs ?? 0) * 3, ...verdicts.map((v) => v.offsetMs * 1.3));
  const scale = Math.log1p(maxMs / 1000);
  const x = (ms: number) => PAD + ((W - 2 * PAD) * Math.log1p(ms / 1000)) / scale;

  const parts: SVGElement[] = [];
  if (kind && rule) {
    const end = x(rule.windowMs);
    parts.push(
      s('rect', { x: PAD, y: BAND_TOP, width: end - PAD, height: AXIS_Y - BAND_TOP, class: 'window-open' }),
      s('rect', {
        x: end,
        y: BAND_TOP,
        width: W - PAD - end,
        height: AXIS_Y - BAND_TOP,
        class: 'window-closed',
      }),
      s('text', { x: PAD, y: 12, class: 'window-label' }, words.open(describeRule(kind, rule))),
      s('text', { x: W - PAD, y: 12, class: 'window-label closed' }, words.closed),
      s('line', { x1: end, x2: end, y1: BAND_TOP - 4, y2: AXIS_Y + 4, class: 'window-end' }),
    );
  } else {
    parts.push(
      s('rect', {
        x: PAD,
        y: BAND_TOP,
        width: W - 2 * PAD,
        height: AXIS_Y - BAND_TOP,
        class: 'window-unchecked',
      }),
      s(
        'text',
        { x: PAD, y: 12, class: 'window-label' },
        policy && kind === null ? words.noWindow : words.unchecked,
      ),
    );
  }
  parts.push(s('line', { x1: PAD, x2: W - PAD, y1: AXIS_Y, y2: AXIS_Y, class: 'axis' }));
  // Ticks closer than a label's width to the previous one are left out ("1 d" and "2 d" would touch).
  let lastTickX = -Infinity;
  for (const tick of TICKS_MS.filter((ms) => ms <= maxMs)) {
    if (x(tick) - lastTickX < 36) continue;
    lastTickX = x(tick);
    parts.push(
      s('line', { x1: x(tick), x2: x(tick), y1: AXIS_Y, y2: AXIS_Y + 5, class: 'axis' }),
      s(
        'text',
        { x: x(tick), y: AXIS_Y + 18, class: `tick${tick === 0 ? ' start' : ''}` },
        tick === 0 ? words.trigger : duration(tick),
      ),
    );
  }
  // Markers at (nearly) the same offset stack upwards instead of hiding each other.
  const placed: number[] = [];
  for (const v of verdicts) {
    const cx = x(v.offsetMs);
    const level = placed.filter((px) => Math.abs(px - cx) < 16).length;
    placed.push(cx);
    const state = !v.outside ? 'inside' : v.hasFallback ? 'fallback' : 'refused';
    parts.push(
      s(
        'g',
        { class: `marker ${state}`, 'data-step': v.index + 1 },
        s('title', {}, words.marker(v.index + 1, offsetLabel(v.offsetMs), v.note ?? words.inside)),
        s('circle', { cx, cy: AXIS_Y - 12 - level * 20, r: 9 }),
        s('text', { x: cx, y: AXIS_Y - 8 - level * 20, class: 'marker-label' }, String(v.index + 1)),
      ),
    );
  }
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'timeline', role: 'img', 'aria-label': words.label },
    parts,
  );
  const notes = verdicts.filter((v) => v.note);
  return h(
    'div',
    { class: 'window-panel' },
    h('h3', {}, words.heading(policyName)),
    svg,
    h(
      'ul',
      { class: 'legend small' },
      h('li', { class: 'inside' }, words.inside),
      h('li', { class: 'fallback' }, words.fallback),
      h('li', { class: 'refused' }, words.refusedLegend),
    ),
    notes.length
      ? h(
          'ul',
          { class: 'window-warnings', 'data-test': 'window-warnings' },
          notes.map((v) => h('li', { class: v.hasFallback ? 'fallback' : 'refused' }, v.note)),
        )
      : h('p', { class: 'ok small' }, words.allInside),
  );
}
