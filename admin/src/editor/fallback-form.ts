import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { TemplateMessage } from '../types.js';
import { textControl } from './message-forms.js';
import { createRemovableRows } from './removable-rows.js';
import { createTemplatePicker, type TemplateSource } from './template-picker.js';

/**
 * The fallback of a step, sent instead when the contact window is closed at due time: a template message, or
 * a subscription notice (`"channel": "notice"`, only to a follower who accepted its template).
 */
export interface FallbackForm {
  readonly el: HTMLElement;
  /** Whether the step has a fallback (the checkbox); the timeline reads it before saving. */
  enabled(): boolean;
  read(prefix: string): TemplateMessage | null;
}

interface DataRow {
  readonly row: HTMLElement;
  readonly key: HTMLInputElement;
  readonly value: HTMLInputElement;
  readonly color?: string;
}

/**
 * Template id, optional link and the template's data fields as key / value rows — or a template chosen from
 * the account's library (`source`), which fills the id and a row per field, labelled as the template words
 * it. Fields the form does not show (miniprogram, client_msg_id, colours) are kept as they were, so editing
 * never drops them.
 */
export function createFallbackForm(
  initial: TemplateMessage | null | undefined,
  source: TemplateSource | null = null,
): FallbackForm {
  const words = t().editor.fallback;
  const toggle = h('input', { type: 'checkbox', name: 'fallback' });
  toggle.checked = Boolean(initial);
  const channel = h(
    'select',
    { name: 'fallback-channel' },
    h('option', { value: 'template' }, words.channelTemplate),
    h('option', { value: 'notice' }, words.channelNotice),
  );
  channel.value = isNotice(initial) ? 'notice' : 'template';
  const templateId = textControl(initial?.template_id ?? '', false, 'template_id');
  const link = isNotice(initial) ? initial?.page : initial?.url;
  const url = textControl(typeof link === 'string' ? link : '', false, 'url');
  const channelRow = field(words.channel, channel);
  const idRow = field(words.templateId, templateId);
  const urlRow = field(words.link, url);
  const hint = h('p', { class: 'hint' });
  const list = createRemovableRows<DataRow>('data-rows');
  const dataRow = h('div', { class: 'field' }, h('span', { class: 'label' }, words.data), list.el);
  const addRow = (key: string, value: string, color?: string, label = '') => {
    const r: DataRow = {
      key: textControl(key, false, 'key') as HTMLInputElement,
      value: textControl(value, false, 'value') as HTMLInputElement,
      row: h('div', { class: 'data-row' }),
      color,
    };
    r.key.placeholder = words.key;
    r.value.placeholder = label || words.value;
    r.key.setAttribute('aria-label', words.keyLabel);
    r.value.setAttribute('aria-label', words.valueLabel);
    list.add(r, [r.key, r.value]);
  };
  const data = Object.entries(initial?.data ?? { thing1: { value: '' } });
  for (const [key, v] of data) addRow(key, v.value, v.color);
  const add = list.addButton(words.add, () => addRow('', ''));
  // Choosing a template keeps the values already typed for its fields and drops the other rows.
  const picker = source
    ? createTemplatePicker(source, (template) => {
        const typed = new Map(list.rows.map((r) => [r.key.value, r] as const));
        templateId.value = template.templateId;
        list.clear();
        for (const { key, label } of template.fields) {
          const before = typed.get(key);
          addRow(key, before?.value.value ?? '', before?.color, label);
        }
      })
    : null;

  const body = h(
    'div',
    { class: 'fallback-body' },
    channelRow,
    hint,
    picker?.el,
    idRow,
    urlRow,
    dataRow,
    add,
  );
  const sync = () => {
    picker?.show(channel.value !== 'notice');
    body.hidden = !toggle.checked;
    hint.textContent = channel.value === 'notice' ? words.noticeHint : '';
    hint.hidden = channel.value !== 'notice';
  };
  toggle.addEventListener('change', sync);
  channel.addEventListener('change', sync);
  sync();

  return {
    el: h(
      'fieldset',
      { class: 'fallback' },
      h('legend', {}, h('label', {}, toggle, ' ', words.toggle)),
      body,
    ),
    enabled: () => toggle.checked,
    read(prefix) {
      if (!toggle.checked) return null;
      const at = `${prefix}.fallback`;
      body.dataset.path = at;
      idRow.dataset.path = `${at}.template_id`;
      dataRow.dataset.path = `${at}.data`;
      const notice = channel.value === 'notice';
      const out: TemplateMessage = { ...(initial ?? {}), template_id: templateId.value, data: {} };
      delete out.url;
      delete out.page;
      delete out.channel;
      if (notice) out.channel = 'notice';
      if (url.value) out[notice ? 'page' : 'url'] = url.value;
      urlRow.dataset.path = `${at}.${notice ? 'page' : 'url'}`;
      for (const r of list.rows) {
        r.row.dataset.path = `${at}.data.${r.key.value}`;
        // A notice's data fields hold a value only (WeChat's bizsend has no colours).
        const color = r.color && !notice ? { color: r.color } : {};
        out.data[r.key.value] = { value: r.value.value, ...color };
      }
      return out;
    },
  };
}

/** Whether a stored fallback is a subscription notice rather than a template message. */
export function isNotice(fallback: TemplateMessage | null | undefined): boolean {
  return fallback?.channel === 'notice';
}
