import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { ErrorDetail, GoalInput } from '../types.js';

const DAY_MS = 86_400_000;
/** Each goal type and its value's field in the API's condition. */
const TYPES = [
  ['event', 'name'],
  ['message', 'keyword'],
  ['click', 'key'],
] as const;

/** The journey's conversion goal: none, or what counts as converted, within how many days, and whether it ends the journey. */
export interface GoalFields {
  readonly el: HTMLElement;
  /** The goal as the API takes it, or undefined for none; a blank value or period is a problem. */
  read(problems: ErrorDetail[]): GoalInput | undefined;
}

export function createGoalFields(initial: GoalInput | null | undefined, changed: () => void): GoalFields {
  const words = t().journey.goal;
  const until = initial?.until;
  const type = h(
    'select',
    { name: 'goal-type' },
    TYPES.map(([v]) => h('option', { value: v, selected: v === (until?.type ?? 'event') }, words.types[v])),
  );
  const value = h('input', { type: 'text', name: 'goal-value' });
  value.value = !until
    ? ''
    : until.type === 'event'
      ? until.name
      : until.type === 'click'
        ? until.key
        : until.keyword;
  const days = h('input', { type: 'number', min: 0, step: 'any', name: 'goal-days', class: 'offset' });
  days.value = String((initial?.periodMs ?? 30 * DAY_MS) / DAY_MS);
  const exit = h('input', { type: 'checkbox', name: 'goal-exit' });
  exit.checked = initial?.exit ?? false;
  const typeRow = field(words.type, type);
  const valueRow = field('', value);
  const daysRow = field(words.periodDays, days);
  const exitRow = h('div', { class: 'field' }, h('label', { class: 'check' }, exit, words.exit));
  const spec = () => TYPES.find(([v]) => v === type.value) ?? TYPES[0];
  const syncLabel = () => (valueRow.querySelector('.label')!.textContent = words.value[spec()[0]]);
  type.addEventListener('change', syncLabel);
  syncLabel();

  const body = h(
    'div',
    { class: 'goal-body' },
    h('div', { class: 'two' }, typeRow, valueRow),
    h('div', { class: 'two' }, daysRow, exitRow),
  );
  let on = !!initial;
  const toggle = h('button', {
    type: 'button',
    class: 'secondary',
    'data-action': 'toggle-goal',
    onclick: () => {
      on = !on;
      draw();
      changed();
    },
  });
  const draw = () => {
    body.hidden = !on;
    toggle.textContent = on ? words.remove : words.add;
    toggle.className = on ? 'link danger' : 'secondary';
  };
  draw();
  const el = h(
    'div',
    { class: 'card goal', 'data-path': 'goal' },
    h('div', { class: 'step-head' }, h('h2', {}, words.title), toggle),
    h('p', { class: 'hint' }, words.hint),
    h('div', { class: 'error-slot' }),
    body,
  );

  return {
    el,
    read(problems) {
      if (!on) return undefined;
      const [kind, param] = spec();
      typeRow.dataset.path = 'goal.until.type';
      valueRow.dataset.path = `goal.until.${param}`;
      daysRow.dataset.path = 'goal.periodMs';
      exitRow.dataset.path = 'goal.exit';
      const v = value.value.trim();
      if (v === '') problems.push({ path: `goal.until.${param}`, message: t().journey.valueProblem });
      const d = Number(days.value);
      if (days.value.trim() === '' || !Number.isFinite(d) || d <= 0)
        problems.push({ path: 'goal.periodMs', message: words.periodProblem });
      return {
        until: (kind === 'event'
          ? { type: kind, name: v }
          : kind === 'click'
            ? { type: kind, key: v }
            : { type: kind, keyword: v }) as GoalInput['until'],
        periodMs: Math.round((Number.isFinite(d) ? d : 0) * DAY_MS),
        exit: exit.checked,
      };
    },
  };
}
