import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { ExitCondition } from '../types.js';

/** The sequence's exit conditions: one row each, added and removed freely. */
export interface ExitFields {
  readonly el: HTMLElement;
  /** Reads the conditions as the API takes them, labelling each row with its `exits.<index>` path. */
  exits(): ExitCondition[];
}

/** Each condition type and its parameter's field in the API's condition (labels in the catalog). */
const TYPES = [
  ['message', 'keyword'],
  ['click', 'key'],
  ['event', 'name'],
] as const;

function paramOf(c: ExitCondition | null): string {
  if (!c) return '';
  if (c.type === 'message') return c.keyword ?? '';
  return c.type === 'click' ? c.key : c.name;
}

interface ExitRow {
  readonly el: HTMLElement;
  read(index: number): ExitCondition;
}

function createExitRow(initial: ExitCondition | null, onRemove: (row: ExitRow) => void): ExitRow {
  const words = t().exits;
  const type = h(
    'select',
    { name: 'exit-type' },
    TYPES.map(([v]) =>
      h('option', { value: v, selected: v === (initial?.type ?? 'message') }, words.types[v].label),
    ),
  );
  const param = h('input', { type: 'text', name: 'exit-param' });
  param.value = paramOf(initial);
  const typeRow = field(words.endsWhen, type);
  const paramRow = field('', param);
  const paramLabel = paramRow.querySelector('.label')!;
  const spec = () => TYPES.find(([v]) => v === type.value) ?? TYPES[0];
  const syncLabel = () => (paramLabel.textContent = words.types[spec()[0]].param);
  type.addEventListener('change', syncLabel);
  syncLabel();

  const el = h(
    'div',
    { class: 'exit-row' },
    h('div', { class: 'error-slot' }),
    h('div', { class: 'two' }, typeRow, paramRow),
    h('button', { type: 'button', class: 'link danger', onclick: () => onRemove(row) }, words.remove),
  );
  const row: ExitRow = {
    el,
    read(index) {
      const at = `exits.${index}`;
      el.dataset.path = at;
      typeRow.dataset.path = `${at}.type`;
      paramRow.dataset.path = `${at}.${spec()[1]}`;
      const p = param.value.trim();
      switch (type.value) {
        case 'click':
          return { type: 'click', key: p };
        case 'event':
          return { type: 'event', name: p };
        default:
          return p ? { type: 'message', keyword: p } : { type: 'message' };
      }
    },
  };
  return row;
}

/**
 * The exit conditions' card. `changed` runs after a row is added or removed (typing is seen by the form's
 * own input listener).
 */
export function createExitFields(initial: readonly ExitCondition[], changed: () => void): ExitFields {
  const words = t().exits;
  const rows: ExitRow[] = [];
  const list = h('div', { class: 'exit-rows' });
  const remove = (row: ExitRow) => {
    rows.splice(rows.indexOf(row), 1);
    row.el.remove();
    changed();
  };
  const add = (c: ExitCondition | null) => {
    const row = createExitRow(c, remove);
    rows.push(row);
    list.append(row.el);
  };
  initial.forEach(add);
  const el = h(
    'div',
    { class: 'card exits', 'data-path': 'exits' },
    h('h2', {}, words.title),
    h('p', { class: 'hint' }, words.hint),
    h('div', { class: 'error-slot' }),
    list,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'data-test': 'add-exit',
        onclick: () => {
          add(null);
          changed();
        },
      },
      words.add,
    ),
  );
  return { el, exits: () => rows.map((r, i) => r.read(i)) };
}
