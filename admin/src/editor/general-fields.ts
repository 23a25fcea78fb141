import { field, h } from '../dom.js';
import type { Account, Sequence, Trigger } from '../types.js';

/** The sequence's own fields: account, name, trigger and once-per-follower. */
export interface GeneralFields {
  readonly el: HTMLElement;
  appId(): string;
  name(): string;
  trigger(): Trigger;
  oncePerFollower(): boolean;
}

/** Each trigger type: its label, its parameter's label, and the parameter's field in the API's trigger. */
const TRIGGERS = [
  ['subscribe', 'Follow', 'QR scene (optional: only follows from that QR code)', 'scene'],
  ['scan', 'QR code scan', 'QR scene', 'scene'],
  ['click', 'Menu click', 'Menu key (EventKey)', 'key'],
  ['keyword', 'Message containing a keyword', 'Keyword, e.g. 课程', 'keyword'],
  ['event', 'API event (posted by another system)', 'Event name, e.g. course_signup', 'name'],
] as const;

function paramOf(t: Trigger): string {
  switch (t.type) {
    case 'click':
      return t.key;
    case 'keyword':
      return t.keyword;
    case 'event':
      return t.name;
    default:
      return t.scene ?? '';
  }
}

export function createGeneralFields(accounts: readonly Account[], initial: Sequence | null): GeneralFields {
  const account = h(
    'select',
    { name: 'appId', disabled: initial !== null },
    accounts.map((a) =>
      h(
        'option',
        { value: a.appId, selected: a.appId === initial?.appId },
        `${a.appId} (policy ${a.policyName})`,
      ),
    ),
  );
  if (initial && !accounts.some((a) => a.appId === initial.appId)) {
    account.append(h('option', { value: initial.appId, selected: true }, initial.appId));
  }
  const name = h('input', { type: 'text', name: 'name', maxlength: 100, placeholder: '例如：新关注欢迎' });
  name.value = initial?.name ?? '';

  const t = initial?.trigger;
  const type = h(
    'select',
    { name: 'trigger' },
    TRIGGERS.map(([v, label]) => h('option', { value: v, selected: v === (t?.type ?? 'subscribe') }, label)),
  );
  const param = h('input', { type: 'text', name: 'trigger-param' });
  param.value = t ? paramOf(t) : '';
  const paramRow = field('', param);
  const paramLabel = paramRow.querySelector('.label')!;
  const syncParam = () => {
    const spec = TRIGGERS.find(([v]) => v === type.value) ?? TRIGGERS[0];
    paramLabel.textContent = spec[2];
    paramRow.dataset.path = `trigger.${spec[3]}`;
  };
  type.addEventListener('change', syncParam);
  syncParam();

  const once = h('input', { type: 'checkbox', name: 'oncePerFollower' });
  once.checked = initial?.oncePerFollower ?? false;

  const el = h(
    'div',
    { class: 'card general' },
    field('Account', account, {
      path: 'appId',
      hint: initial ? 'A sequence stays with its account.' : undefined,
    }),
    field('Name', name, { path: 'name' }),
    h('div', { class: 'two' }, field('Starts on', type, { path: 'trigger' }), paramRow),
    h(
      'div',
      { class: 'field', 'data-path': 'oncePerFollower' },
      h('label', { class: 'check' }, once, ' Once per follower ever (not on every trigger event)'),
    ),
  );

  return {
    el,
    appId: () => account.value,
    name: () => name.value,
    trigger(): Trigger {
      const p = param.value.trim();
      switch (type.value) {
        case 'scan':
          return { type: 'scan', scene: p };
        case 'click':
          return { type: 'click', key: p };
        case 'keyword':
          return { type: 'keyword', keyword: p };
        case 'event':
          return { type: 'event', name: p };
        default:
          return p ? { type: 'subscribe', scene: p } : { type: 'subscribe' };
      }
    },
    oncePerFollower: () => once.checked,
  };
}
