import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { ErrorDetail, WaitCondition, WaitInput } from '../types.js';
import { createDurationInput } from './duration-input.js';

/** The condition choices, each with the API's condition type and its value's field (null: none). */
const CONDITIONS = [
  ['any', 'message', null],
  ['keyword', 'message', 'keyword'],
  ['click', 'click', 'key'],
  ['scan', 'scan', 'scene'],
  ['event', 'event', 'name'],
  ['var', 'var', 'name'],
] as const;
type ConditionChoice = (typeof CONDITIONS)[number][0];

function choiceOf(c: WaitCondition | undefined): ConditionChoice {
  if (!c) return 'keyword';
  if (c.type === 'message') return c.keyword === undefined ? 'any' : 'keyword';
  return c.type;
}

function valueOf(c: WaitCondition | undefined): string {
  if (!c) return '';
  switch (c.type) {
    case 'message':
      return c.keyword ?? '';
    case 'click':
      return c.key;
    case 'scan':
      return c.scene;
    default:
      return c.name;
  }
}

/** The wait that ends a path: what it watches for, from when, how long, and whether its timeout goes on. */
export interface WaitCard {
  readonly el: HTMLElement;
  /** Whether the timeout leads to a path of its own (else the journey ends there). */
  noLeadsOn(): boolean;
  /**
   * Reads the wait as the API takes it (its branches' path names given), labelling fields with their
   * `<prefix>wait…` paths; a blank value or timeout is a problem the browser names itself.
   */
  read(prefix: string, yes: string, no: string | null, problems: ErrorDetail[]): WaitInput;
}

/** `onNoChange` runs when the timeout's branch is switched between a new path and the journey's end. */
export function createWaitCard(
  initial: WaitInput | null,
  onRemove: () => void,
  onNoChange: (leadsOn: boolean) => void,
): WaitCard {
  const words = t().journey;
  const choice = h(
    'select',
    { name: 'wait-type' },
    CONDITIONS.map(([c]) =>
      h('option', { value: c, selected: c === choiceOf(initial?.until) }, words.conditions[c]),
    ),
  );
  const value = h('input', { type: 'text', name: 'wait-value' });
  value.value = valueOf(initial?.until);
  const typeRow = field(words.conditionType, choice);
  const valueRow = field('', value);
  const valueLabel = valueRow.querySelector('.label')!;
  const spec = () => CONDITIONS.find(([c]) => c === choice.value) ?? CONDITIONS[0];
  const syncValue = () => {
    valueLabel.textContent = words.conditionValue[spec()[0]];
    valueRow.hidden = spec()[2] === null;
  };
  choice.addEventListener('change', syncValue);
  syncValue();

  const after = createDurationInput(initial?.afterMs, 'wait-after');
  const timeout = createDurationInput(initial?.timeoutMs, 'wait-timeout');
  const afterRow = field(words.startsAfter, after.el, { hint: words.startsAfterHint });
  const timeoutRow = field(words.timeout, timeout.el);
  const no = h(
    'select',
    { name: 'wait-no', onchange: () => onNoChange(no.value === 'path') },
    h('option', { value: 'path', selected: !!initial?.no }, words.newPath),
    h('option', { value: 'end', selected: !initial?.no }, words.endJourney),
  );
  const noRow = field(words.noLeadsTo, no);
  const yesRow = h('div', { class: 'field' }, h('span', { class: 'label' }, words.yesLeadsTo));

  const el = h(
    'div',
    { class: 'card wait-card' },
    h(
      'div',
      { class: 'step-head' },
      h('h3', {}, words.waitTitle),
      h(
        'button',
        { type: 'button', class: 'link danger', 'data-action': 'remove-wait', onclick: onRemove },
        words.removeWait,
      ),
    ),
    h('div', { class: 'error-slot' }),
    h('div', { class: 'two' }, typeRow, valueRow),
    h('div', { class: 'two' }, afterRow, timeoutRow),
    h('div', { class: 'two' }, yesRow, noRow),
  );

  return {
    el,
    noLeadsOn: () => no.value === 'path',
    read(prefix, yesName, noName, problems) {
      const at = `${prefix}wait`;
      el.dataset.path = at;
      const [, type, param] = spec();
      typeRow.dataset.path = `${at}.until.type`;
      valueRow.dataset.path = `${at}.until.${param ?? 'type'}`;
      afterRow.dataset.path = `${at}.afterMs`;
      timeoutRow.dataset.path = `${at}.timeoutMs`;
      yesRow.dataset.path = `${at}.yes`;
      noRow.dataset.path = `${at}.no`;
      const v = value.value.trim();
      if (param !== null && v === '')
        problems.push({ path: `${at}.until.${param}`, message: words.valueProblem });
      const afterMs = after.ms();
      if (Number.isNaN(afterMs)) problems.push({ path: `${at}.afterMs`, message: t().editor.offsetProblem });
      const timeoutMs = timeout.ms();
      if (timeoutMs === null || Number.isNaN(timeoutMs))
        problems.push({ path: `${at}.timeoutMs`, message: words.timeoutProblem });
      const until = (
        type === 'message' ? (param === null ? { type } : { type, keyword: v }) : { type, [param]: v }
      ) as WaitCondition;
      return {
        ...(afterMs === null || Number.isNaN(afterMs) ? {} : { afterMs }),
        until,
        timeoutMs: timeoutMs ?? 0,
        yes: yesName,
        no: noName,
      };
    },
  };
}
