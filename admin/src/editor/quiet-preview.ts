import { h, replace } from '../dom.js';
import { dateMinutes, duration, hourMinute, offsetLabel } from '../format.js';
import { t } from '../i18n/index.js';
import {
  instantOf,
  type QuietHours,
  quietHoursEnd,
  quietSpanMs,
  wallClockAt,
} from '../policy/quiet-hours.js';
import { delayCanPushOut, outsideWindow, windowOpenedBy } from '../policy/window-rule.js';
import type { InteractionKind, WindowPolicy } from '../types.js';
import { spanLabel } from './quiet-fields.js';

/** What the preview needs of the draft and its account. */
export interface QuietPreviewState {
  readonly quiet: QuietHours | null;
  readonly zone: string;
  readonly policy: WindowPolicy;
  readonly kind: InteractionKind | null;
  readonly steps: readonly { offsetMs: number; hasFallback: boolean }[];
}

export interface QuietPreview {
  readonly el: HTMLElement;
  update(state: QuietPreviewState): void;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** A moment as a datetime-local input's value in `zone`: "2026-11-25T21:30". */
function inputValue(at: number, zone: string): string {
  const c = wallClockAt(at, zone);
  return `${c.year}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}`;
}
/** The moment a datetime-local value stands for in `zone`; null when it is empty or partial. */
function momentOf(value: string, zone: string): number | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$/.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((part) => Number(part ?? 0));
  return instantOf({ year, month, day, hour, minute, second }, zone);
}

/**
 * Where each step falls for a sample trigger time (now by default, in the account's zone): its due time,
 * and what the claim will do — send it then (as a customer-service message inside the window, else on its
 * fallback, else not at all), or, when quiet hours hold it, move it to their end (sent then, or on its
 * fallback once the window has closed) or skip it. Steps that quiet hours can push past their window
 * without a fallback are listed, as the API warns of them on save.
 */
export function createQuietPreview(): QuietPreview {
  const words = t().quiet;
  const sample = h('input', { type: 'datetime-local', name: 'quiet-sample', 'data-test': 'quiet-sample' });
  const zoneEl = h('span', { class: 'muted small' });
  const body = h('div', {});
  let state: QuietPreviewState | null = null;
  let shownZone = '';

  const render = () => {
    if (!state) return;
    const { quiet, zone, policy, kind, steps } = state;
    if (zone !== shownZone && !sample.dataset.touched) sample.value = inputValue(Date.now(), zone);
    shownZone = zone;
    zoneEl.textContent = words.zone(zone);
    const trigger = momentOf(sample.value, zone) ?? Date.now();
    const opened = kind ? windowOpenedBy(policy, kind, new Date(trigger)) : null;
    const items = steps.map(({ offsetMs, hasFallback }, i) => {
      const due = trigger + offsetMs;
      const end = quietHoursEnd(quiet, zone, new Date(due));
      // The claim's rule, as the window chart applies it: a step sent when due, or at the quiet hours' end,
      // goes as a customer-service message if the window is open then (or not known here), else by its
      // fallback, else not at all.
      const open = (at: number) => !opened || outsideWindow(opened, i, new Date(at)) === null;
      const [cls, mark] =
        end === null
          ? open(due)
            ? ['on-time', words.onTime]
            : hasFallback
              ? ['on-time fallback', words.onTimeFallback]
              : ['skipped', words.outsideWindow]
          : open(end.getTime())
            ? ['moved', words.moved(hourMinute(end, zone))]
            : hasFallback
              ? ['moved fallback', words.movedFallback(hourMinute(end, zone))]
              : ['skipped', words.skipped];
      return h(
        'li',
        { class: `quiet-step ${cls}`, 'data-step': i + 1 },
        h('span', { class: 'step-name' }, words.step(i + 1, offsetLabel(offsetMs))),
        h('time', {}, dateMinutes(new Date(due), zone)),
        h('span', { class: 'quiet-mark' }, mark),
      );
    });
    const span = quiet ? quietSpanMs(quiet) : 0;
    const risks = steps.flatMap(({ offsetMs, hasFallback }, i) =>
      quiet && !hasFallback && delayCanPushOut(policy, kind, i, offsetMs, span)
        ? [h('li', { class: 'refused' }, words.risk(i + 1, duration(span)))]
        : [],
    );
    replace(
      body,
      h('p', { class: 'small' }, quiet ? words.active(spanLabel(quiet)) : words.none),
      h('ol', { class: 'quiet-steps', 'data-test': 'quiet-steps' }, items),
      risks.length ? h('ul', { class: 'window-warnings', 'data-test': 'quiet-warnings' }, risks) : null,
    );
  };
  sample.addEventListener('input', () => {
    sample.dataset.touched = 'yes';
    render();
  });

  return {
    el: h(
      'div',
      { class: 'window-panel quiet-panel', 'data-test': 'quiet-preview' },
      h('h3', {}, words.heading),
      h('label', { class: 'quiet-sample' }, h('span', { class: 'label' }, words.sample), sample, zoneEl),
      body,
    ),
    update(next) {
      state = next;
      render();
    },
  };
}
