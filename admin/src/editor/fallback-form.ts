import { field, h, replace } from '../dom.js';
import { t } from '../i18n/index.js';
import type { TemplateMessage } from '../types.js';
import { textControl } from './message-forms.js';

/** The template fallback of a step: sent instead when the contact window is closed at due time. */
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
 * Template id, optional link and the template's data fields as key / value rows. Fields the form does not
 * show (miniprogram, client_msg_id, colours) are kept as they were, so editing never drops them.
 */
export function createFallbackForm(initial: TemplateMessage | null | undefined): FallbackForm {
  const words = t().editor.fallback;
  const toggle = h('input', { type: 'checkbox', name: 'fallback' });
  toggle.checked = Boolean(initial);
  const templateId = textControl(initial?.template_id ?? '', false, 'template_id');
  const url = textControl(initial?.url ?? '', false, 'url');
  const idRow = field(words.templateId, templateId);
  const urlRow = field(words.link, url);
  const rowsEl = h('div', { class: 'data-rows' });
  const dataRow = h('div', { class: 'field' }, h('span', { class: 'label' }, words.data), rowsEl);
  const rows: DataRow[] = [];

  const render = () =>
    replace(
      rowsEl,
      rows.map((r) => r.row),
    );
  const addRow = (key: string, value: string, color?: string) => {
    const r: DataRow = {
      key: textControl(key, false, 'key') as HTMLInputElement,
      value: textControl(value, false, 'value') as HTMLInputElement,
      row: h('div', { class: 'data-row' }),
      color,
    };
    r.key.placeholder = words.key;
    r.value.placeholder = words.value;
    r.key.setAttribute('aria-label', words.keyLabel);
    r.value.setAttribute('aria-label', words.valueLabel);
    const remove = () => {
      rows.splice(rows.indexOf(r), 1);
      render();
      rowsEl.dispatchEvent(new Event('input', { bubbles: true }));
    };
    r.row.append(
      r.key,
      r.value,
      h('button', { type: 'button', class: 'link', onclick: remove }, t().common.remove),
    );
    rows.push(r);
    render();
  };
  const data = Object.entries(initial?.data ?? { first: { value: '' } });
  for (const [key, v] of data) addRow(key, v.value, v.color);
  const add = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      onclick: () => {
        addRow('', '');
        rowsEl.dispatchEvent(new Event('input', { bubbles: true }));
      },
    },
    words.add,
  );

  const body = h('div', { class: 'fallback-body' }, idRow, urlRow, dataRow, add);
  const sync = () => (body.hidden = !toggle.checked);
  toggle.addEventListener('change', sync);
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
      urlRow.dataset.path = `${at}.url`;
      dataRow.dataset.path = `${at}.data`;
      const out: TemplateMessage = { ...(initial ?? {}), template_id: templateId.value, data: {} };
      delete out.url;
      if (url.value) out.url = url.value;
      for (const r of rows) {
        r.row.dataset.path = `${at}.data.${r.key.value}`;
        out.data[r.key.value] = { value: r.value.value, ...(r.color ? { color: r.color } : {}) };
      }
      return out;
    },
  };
}
