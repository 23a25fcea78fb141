import { stepBar } from '../charts.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { StepResult } from '../types.js';

/** The rows under an A/B step's row: each variant's outcomes, and the enrollments that exited after it. */
export function variantRows(r: StepResult): HTMLElement[] {
  const words = t().results;
  return (r.variants ?? []).map((v) =>
    h(
      'tr',
      { class: 'variant-row', 'data-step': r.stepIndex + 1, 'data-variant': v.name },
      h('td', {}, ''),
      h('td', { colspan: 2 }, words.variant(v.name)),
      h('td', { class: 'num' }, v.scheduled),
      h('td', { class: 'num' }, v.pending),
      h('td', { class: 'num' }, v.sent),
      h('td', {}, v.skipped),
      h('td', {}, v.failed),
      h('td', { class: 'num' }, v.cancelled),
      h('td', { class: 'num' }, v.unknown),
      h('td', { class: 'small', 'data-field': 'exited-after' }, words.exitedAfter(v.exitedAfter)),
      h(
        'td',
        {},
        stepBar([
          { key: 'sent', n: v.sent },
          { key: 'skipped', n: v.skipped },
          { key: 'failed', n: v.failed },
          { key: 'cancelled', n: v.cancelled },
          { key: 'pending', n: v.pending + v.unknown },
        ]),
      ),
    ),
  );
}
