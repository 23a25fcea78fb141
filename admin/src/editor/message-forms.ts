import { field, h } from '../dom.js';
import { t, type Catalog } from '../i18n/index.js';
import type { ErrorDetail, Json } from '../types.js';
import type { AccountTools } from './account-tools.js';
import { createRemovableRows } from './removable-rows.js';

/** The message kinds the step editor has a form for; `json` edits any other payload as it is. */
export const KINDS = [
  'text',
  'image',
  'voice',
  'video',
  'news',
  'mpnewsarticle',
  'miniprogrampage',
  'msgmenu',
  'json',
] as const;
export type Kind = (typeof KINDS)[number];

/** A field's label or hint: its key in the catalog's editor fields. */
type FieldWord = keyof Catalog['editor']['fields'];

interface FieldSpec {
  /** Where the value goes inside the msgtype's object; numbers index arrays. */
  readonly path: readonly (string | number)[];
  readonly label: FieldWord;
  readonly optional?: boolean;
  readonly multiline?: boolean;
  readonly hint?: FieldWord;
}

const MEDIA_HINT: FieldWord = 'mediaHint';
const SPECS: Record<Exclude<Kind, 'json' | 'msgmenu'>, readonly FieldSpec[]> = {
  text: [{ path: ['content'], label: 'text', multiline: true, hint: 'textHint' }],
  image: [{ path: ['media_id'], label: 'imageMedia', hint: MEDIA_HINT }],
  voice: [{ path: ['media_id'], label: 'voiceMedia', hint: MEDIA_HINT }],
  video: [
    { path: ['media_id'], label: 'videoMedia', hint: MEDIA_HINT },
    { path: ['thumb_media_id'], label: 'thumbMedia' },
    { path: ['title'], label: 'title', optional: true },
    { path: ['description'], label: 'description', optional: true },
  ],
  news: [
    { path: ['articles', 0, 'title'], label: 'title' },
    { path: ['articles', 0, 'description'], label: 'description', optional: true },
    { path: ['articles', 0, 'url'], label: 'link' },
    { path: ['articles', 0, 'picurl'], label: 'picUrl', optional: true },
  ],
  mpnewsarticle: [{ path: ['article_id'], label: 'articleId', hint: 'articleIdHint' }],
  miniprogrampage: [
    { path: ['title'], label: 'title', optional: true },
    { path: ['appid'], label: 'miniAppid' },
    { path: ['pagepath'], label: 'pagePath', hint: 'pagePathHint' },
    { path: ['thumb_media_id'], label: 'cardImage' },
  ],
};

/** One message form: builds its inputs, reads them back as a WeChat payload under `prefix`. */
export interface MessageForm {
  readonly kind: Kind;
  readonly el: HTMLElement;
  read(prefix: string, problems: ErrorDetail[]): Json;
}

function valueAt(obj: unknown, path: readonly (string | number)[]): string {
  let v: unknown = obj;
  for (const p of path) v = (v as Record<string | number, unknown> | undefined)?.[p];
  return typeof v === 'string' ? v : '';
}

function setAt(obj: Json, path: readonly (string | number)[], value: string): void {
  let cur: Record<string | number, unknown> = obj;
  path.slice(0, -1).forEach((p, i) => {
    cur[p] ??= typeof path[i + 1] === 'number' ? [] : {};
    cur = cur[p] as Record<string | number, unknown>;
  });
  cur[path[path.length - 1]] = value;
}

/** A text input or textarea with the given value; every edit bubbles an `input` event to the editor. */
export function textControl(
  value: string,
  multiline = false,
  name = '',
): HTMLInputElement | HTMLTextAreaElement {
  const el = multiline ? h('textarea', { rows: 4, name }) : h('input', { type: 'text', name });
  el.value = value;
  return el;
}

function specForm(
  kind: Exclude<Kind, 'json' | 'msgmenu'>,
  message: Json | null,
  tools: AccountTools | null,
): MessageForm {
  const body = message?.msgtype === kind ? message[kind] : undefined;
  const { editor, common } = t();
  const rows = SPECS[kind].map((spec) => {
    const control = textControl(valueAt(body, spec.path), spec.multiline, spec.path.join('.'));
    const label = editor.fields[spec.label] + (spec.optional ? common.optional : '');
    const row = field(label, control, { hint: spec.hint ? editor.fields[spec.hint] : undefined });
    return { spec, control, row };
  });
  const extras =
    kind === 'text'
      ? linkHelper(rows[0].control as HTMLTextAreaElement)
      : kind === 'image' && tools
        ? imageUpload(rows[0].control, tools)
        : null;
  return {
    kind,
    el: h(
      'div',
      { class: 'message-form' },
      rows.map((r) => r.row),
      extras,
    ),
    read(prefix) {
      const object: Json = {};
      for (const { spec, control, row } of rows) {
        row.dataset.path = [prefix, kind, ...spec.path].join('.');
        if (control.value !== '' || !spec.optional) setAt(object, spec.path, control.value);
      }
      return { msgtype: kind, [kind]: object };
    },
  };
}

/**
 * Uploads an image file to the account's permanent media and puts its media_id in `mediaId` (a permanent
 * one: a temporary media_id lasts 3 days, a step may go out later).
 */
function imageUpload(mediaId: HTMLInputElement | HTMLTextAreaElement, tools: AccountTools): HTMLElement {
  const words = t().editor.upload;
  const file = h('input', {
    type: 'file',
    name: 'image-file',
    accept: 'image/png,image/jpeg,image/gif,image/bmp',
    'aria-label': words.label,
  });
  const status = h('span', { class: 'hint', role: 'status' });
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    status.textContent = words.uploading(chosen.name);
    tools
      .uploadImage(chosen)
      .then((uploaded) => {
        mediaId.value = uploaded.mediaId;
        mediaId.dispatchEvent(new Event('input', { bubbles: true }));
        status.textContent = words.uploaded(chosen.name, Math.ceil(uploaded.bytes / 1024));
      })
      .catch((err: unknown) => (status.textContent = err instanceof Error ? err.message : String(err)));
  });
  return h('div', { class: 'image-upload' }, h('span', { class: 'label' }, words.label), file, status);
}

/** Inserts `<a href="…">…</a>` at the cursor: WeChat's markup for a link inside a text message. */
function linkHelper(textarea: HTMLTextAreaElement): HTMLElement {
  const link = t().editor.link;
  const url = h('input', { type: 'url', placeholder: 'https://…', 'aria-label': link.url });
  const words = h('input', { type: 'text', placeholder: link.words, 'aria-label': link.words });
  const insert = () => {
    if (!/^https?:\/\//.test(url.value)) {
      url.focus();
      return;
    }
    const markup = `<a href="${url.value.replace(/"/g, '%22')}">${words.value || url.value}</a>`;
    const at = textarea.selectionStart ?? textarea.value.length;
    textarea.setRangeText(markup, at, textarea.selectionEnd ?? at, 'end');
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
    url.value = words.value = '';
  };
  return h(
    'div',
    { class: 'inline-tool' },
    h('span', { class: 'label' }, link.add),
    url,
    words,
    h('button', { type: 'button', class: 'secondary small', onclick: insert }, link.insert),
  );
}

/** An option of a menu message: its id and text inputs. */
interface MenuItem {
  readonly row: HTMLElement;
  readonly id: HTMLInputElement;
  readonly content: HTMLInputElement;
}

function menuForm(message: Json | null): MessageForm {
  const body = (message?.msgtype === 'msgmenu' ? message.msgmenu : undefined) as
    { head_content?: string; tail_content?: string; list?: { id?: string; content?: string }[] } | undefined;
  const head = textControl(body?.head_content ?? '', false, 'head_content');
  const tail = textControl(body?.tail_content ?? '', false, 'tail_content');
  const menu = t().editor.menu;
  const headRow = field(menu.head, head);
  const tailRow = field(menu.tail, tail);
  const list = createRemovableRows<MenuItem>('menu-items');
  const listRow = h('div', { class: 'field' }, h('span', { class: 'label' }, menu.options), list.el);
  const addItem = (id: string, content: string) => {
    const item: MenuItem = {
      id: textControl(id, false, 'id') as HTMLInputElement,
      content: textControl(content, false, 'content') as HTMLInputElement,
      row: h('div', { class: 'menu-item' }),
    };
    item.id.setAttribute('aria-label', menu.optionId);
    item.content.setAttribute('aria-label', menu.optionText);
    list.add(item, [item.id, item.content]);
  };
  for (const i of body?.list ?? [{ id: '101', content: '' }]) addItem(i.id ?? '', i.content ?? '');
  const add = list.addButton(menu.add, () => addItem(String(101 + list.rows.length), ''));
  return {
    kind: 'msgmenu',
    el: h('div', { class: 'message-form' }, headRow, listRow, add, tailRow),
    read(prefix) {
      const at = `${prefix}.msgmenu`;
      headRow.dataset.path = `${at}.head_content`;
      tailRow.dataset.path = `${at}.tail_content`;
      listRow.dataset.path = `${at}.list`;
      list.rows.forEach((item, n) => (item.row.dataset.path = `${at}.list.${n}`));
      return {
        msgtype: 'msgmenu',
        msgmenu: {
          ...(head.value ? { head_content: head.value } : {}),
          list: list.rows.map((i) => ({ id: i.id.value, content: i.content.value })),
          ...(tail.value ? { tail_content: tail.value } : {}),
        },
      };
    },
  };
}

function jsonForm(message: Json | null): MessageForm {
  const area = textControl(
    message ? JSON.stringify(message, null, 2) : '{\n  "msgtype": ""\n}',
    true,
    'json',
  );
  area.setAttribute('rows', '8');
  area.classList.add('code');
  const words = t().editor.json;
  const row = field(words.label, area);
  return {
    kind: 'json',
    el: h('div', { class: 'message-form' }, row),
    read(prefix, problems) {
      row.dataset.path = prefix;
      try {
        const parsed = JSON.parse(area.value) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
        problems.push({ path: prefix, message: words.notObject });
      } catch (err) {
        problems.push({ path: prefix, message: words.invalid((err as Error).message) });
      }
      return {};
    },
  };
}

/** The kind of form for a stored message: its msgtype when there is a form for it, JSON otherwise. */
export function kindOf(message: Json | null): Kind {
  const type = message?.msgtype;
  return KINDS.some((k) => k === type && k !== 'json') ? (type as Kind) : message ? 'json' : 'text';
}

/** A form for `kind`, prefilled from `message` when it is of that kind. */
export function createMessageForm(
  kind: Kind,
  message: Json | null,
  tools: AccountTools | null = null,
): MessageForm {
  if (kind === 'json') return jsonForm(message);
  if (kind === 'msgmenu') return menuForm(message);
  return specForm(kind, message, tools);
}
