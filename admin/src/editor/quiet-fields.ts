import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { QuietHours } from '../policy/quiet-hours.js';

/** The sequence's quiet-hours setting: the account's default (inherit), none, or its own span. */
export interface QuietFields {
  readonly el: HTMLElement;
  /** As the API takes it: its own span, `false` for none, undefined to inherit the account's. */
  value(): QuietHours | false | undefined;
  /** Shows the account's default (and zone) the sequence would inherit. */
  sync(accountDefault: QuietHours | null, zone: string): void;
}

/** "22:00–08:00". */
export const spanLabel = (q: QuietHours): string => `${q.start}–${q.end}`;

export function createQuietFields(initial: QuietHours | false | null | undefined): QuietFields {
  const words = t().quiet;
  const inherit = h('option', { value: 'inherit' }, words.inherit(null));
  const mode = h(
    'select',
    { name: 'quietHours-mode', 'data-test': 'quiet-mode' },
    inherit,
    h('option', { value: 'off' }, words.off),
    h('option', { value: 'own' }, words.own),
  );
  mode.value = initial === false ? 'off' : initial ? 'own' : 'inherit';
  // Seconds allowed (step 1): quiet hours may end at 08:00:30.
  const start = h('input', { type: 'time', step: 1, name: 'quiet-start', 'data-test': 'quiet-start' });
  const end = h('input', { type: 'time', step: 1, name: 'quiet-end', 'data-test': 'quiet-end' });
  start.value = initial ? initial.start : '22:00';
  end.value = initial ? initial.end : '08:00';
  const times = h(
    'div',
    { class: 'two' },
    field(words.start, start, { path: 'quietHours.start' }),
    field(words.end, end, { path: 'quietHours.end' }),
  );
  const hint = h('div', { class: 'hint' });
  const showTimes = () => (times.hidden = mode.value !== 'own');
  mode.addEventListener('change', showTimes);
  showTimes();

  return {
    el: h(
      'div',
      { class: 'card quiet-hours', 'data-path': 'quietHours' },
      h('h2', {}, words.title),
      field(words.mode, mode),
      times,
      hint,
    ),
    value() {
      if (mode.value === 'off') return false;
      return mode.value === 'own' ? { start: start.value, end: end.value } : undefined;
    },
    sync(accountDefault, zone) {
      inherit.textContent = words.inherit(accountDefault ? spanLabel(accountDefault) : null);
      hint.textContent = words.hint(zone);
    },
  };
}
