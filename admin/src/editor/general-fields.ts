import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { Account, Sequence, Trigger } from '../types.js';
import { DEFAULT_TIME_ZONE } from '../format.js';
import { createQrCodePanel, type QrCodeSource } from './qr-code-panel.js';

/** The sequence's own fields: account, name, trigger and once-per-follower. */
export interface GeneralFields {
  readonly el: HTMLElement;
  appId(): string;
  name(): string;
  trigger(): Trigger;
  oncePerFollower(): boolean;
}

/** Each trigger type and the parameter's field in the API's trigger (none for `api`). */
const TRIGGERS = [
  ['subscribe', 'scene'],
  ['scan', 'scene'],
  ['click', 'key'],
  ['keyword', 'keyword'],
  ['event', 'name'],
  ['api', null],
] as const;

function paramOf(t: Trigger): string {
  switch (t.type) {
    case 'click':
      return t.key;
    case 'keyword':
      return t.keyword;
    case 'event':
      return t.name;
    case 'api':
      return '';
    default:
      return t.scene ?? '';
  }
}

export function createGeneralFields(
  accounts: readonly Account[],
  initial: Sequence | null,
  makeQrCode: QrCodeSource | null = null,
): GeneralFields {
  const { editor: words, policyNames } = t();
  const account = h(
    'select',
    { name: 'appId', disabled: initial !== null },
    accounts.map((a) =>
      h(
        'option',
        { value: a.appId, selected: a.appId === initial?.appId },
        words.accountOption(a.appId, policyNames[a.policyName]),
      ),
    ),
  );
  if (initial && !accounts.some((a) => a.appId === initial.appId)) {
    account.append(h('option', { value: initial.appId, selected: true }, initial.appId));
  }
  const name = h('input', { type: 'text', name: 'name', maxlength: 100, placeholder: words.namePlaceholder });
  name.value = initial?.name ?? '';

  const trigger = initial?.trigger;
  const type = h(
    'select',
    { name: 'trigger' },
    TRIGGERS.map(([v]) =>
      h('option', { value: v, selected: v === (trigger?.type ?? 'subscribe') }, words.triggers[v].label),
    ),
  );
  const param = h('input', { type: 'text', name: 'trigger-param' });
  param.value = trigger ? paramOf(trigger) : '';
  const paramRow = field('', param);
  const paramLabel = paramRow.querySelector('.label')!;
  // A follow or a scan with a scene: its QR code can be made here (the scene is what the code carries).
  const qr = makeQrCode
    ? createQrCodePanel(
        () => param.value.trim(),
        () => accounts.find((a) => a.appId === account.value)?.timeZone ?? DEFAULT_TIME_ZONE,
        makeQrCode,
      )
    : null;
  if (qr) paramRow.append(qr.el);
  const syncParam = () => {
    const spec = TRIGGERS.find(([v]) => v === type.value) ?? TRIGGERS[0];
    paramLabel.textContent = words.triggers[spec[0]].param;
    paramRow.hidden = spec[1] === null;
    paramRow.dataset.path = spec[1] === null ? 'trigger' : `trigger.${spec[1]}`;
    qr?.show(spec[1] === 'scene' && param.value.trim() !== '');
  };
  type.addEventListener('change', syncParam);
  param.addEventListener('input', syncParam);
  syncParam();

  const once = h('input', { type: 'checkbox', name: 'oncePerFollower' });
  once.checked = initial?.oncePerFollower ?? false;

  const el = h(
    'div',
    { class: 'card general' },
    field(words.account, account, {
      path: 'appId',
      hint: initial ? words.accountFixed : undefined,
    }),
    field(words.name, name, { path: 'name' }),
    h('div', { class: 'two' }, field(words.startsOn, type, { path: 'trigger' }), paramRow),
    h(
      'div',
      { class: 'field', 'data-path': 'oncePerFollower' },
      h('label', { class: 'check' }, once, ' ', words.once),
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
        case 'api':
          return { type: 'api' };
        case 'event':
          return { type: 'event', name: p };
        default:
          return p ? { type: 'subscribe', scene: p } : { type: 'subscribe' };
      }
    },
    oncePerFollower: () => once.checked,
  };
}
