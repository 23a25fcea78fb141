import { field, h } from '../dom.js';
import type { ExitCondition } from '../types.js';

/** The sequence's exit conditions: one row each, added and removed freely. */
export interface ExitFields {
  readonly el: HTMLElement;
  /** Reads the conditions as the API takes them, labelling each row with its `exits.<index>` path. */
  exits(): ExitCondition[];
}

/** Each condition type: its label, its parameter's label, and the parameter's field in the API's condition. */
const TYPES = [
  ['message', 'The follower sends a message', 'Containing (empty: any message)', 'keyword'],
  ['click', 'The follower clicks a menu item', 'Menu key (EventKey)', 'key'],
  ['event', 'Another system posts an event', 'Event name, e.g. purchased', 'name'],
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
  const type = h(
    'select',
    { name: 'exit-type' },
    TYPES.map(([v, label]) => h('option', { value: v, selected: v === (initial?.type ?? 'message') }, label)),
  );
  const param = h('input', { type: 'text', name: 'exit-param' });
  param.value = paramOf(initial);
  const typeRow = field('Ends when', type);
  const paramRow = field('', param);
  const paramLabel = paramRow.querySelector('.label')!;
  const spec = () => TYPES.find(([v]) => v === type.value) ?? TYPES[0];
  const syncLabel = () => (paramLabel.textContent = spec()[2]);
  type.addEventListener('change', syncLabel);
  syncLabel();

  const el = h(
    'div',
    { class: 'exit-row' },
    h('div', { class: 'error-slot' }),
    h('div', { class: 'two' }, typeRow, paramRow),
    h('button', { type: 'button', class: 'link danger', onclick: () => onRemove(row) }, 'Remove'),
  );
  const row: ExitRow = {
    el,
    read(index) {
      const at = `exits.${index}`;
      el.dataset.path = at;
      typeRow.dataset.path = `${at}.type`;
      paramRow.dataset.path = `${at}.${spec()[3]}`;
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
    h('h2', {}, 'Exit conditions'),
    h(
      'p',
      { class: 'hint' },
      'A follower who meets one stops getting this sequence: the rest of their steps are cancelled.',
    ),
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
      'Add exit condition',
    ),
  );
  return { el, exits: () => rows.map((r, i) => r.read(i)) };
}
