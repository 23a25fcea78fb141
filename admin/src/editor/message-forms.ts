import { field, h, replace } from '../dom.js';
import type { ErrorDetail, Json } from '../types.js';

/** The message kinds the step editor has a form for; `json` edits any other payload as it is. */
export const KINDS = [
  ['text', 'Text (with links)'],
  ['image', 'Image'],
  ['voice', 'Voice'],
  ['video', 'Video'],
  ['news', 'News card (one article)'],
  ['mpnewsarticle', 'Published article'],
  ['miniprogrampage', 'Mini program card'],
  ['msgmenu', 'Menu message'],
  ['json', 'Other (JSON)'],
] as const;
export type Kind = (typeof KINDS)[number][0];

interface FieldSpec {
  /** Where the value goes inside the msgtype's object; numbers index arrays. */
  readonly path: readonly (string | number)[];
  readonly label: string;
  readonly optional?: boolean;
  readonly multiline?: boolean;
  readonly hint?: string;
}

const MEDIA_HINT = 'The media_id of a file uploaded to the account (素材管理).';
const SPECS: Record<Exclude<Kind, 'json' | 'msgmenu'>, readonly FieldSpec[]> = {
  text: [
    {
      path: ['content'],
      label: 'Text',
      multiline: true,
      hint: 'Links are written <a href="https://…">words</a>; at most 2048 bytes.',
    },
  ],
  image: [{ path: ['media_id'], label: 'Image media_id', hint: MEDIA_HINT }],
  voice: [{ path: ['media_id'], label: 'Voice media_id', hint: MEDIA_HINT }],
  video: [
    { path: ['media_id'], label: 'Video media_id', hint: MEDIA_HINT },
    { path: ['thumb_media_id'], label: 'Thumbnail media_id' },
    { path: ['title'], label: 'Title', optional: true },
    { path: ['description'], label: 'Description', optional: true },
  ],
  news: [
    { path: ['articles', 0, 'title'], label: 'Title' },
    { path: ['articles', 0, 'description'], label: 'Description', optional: true },
    { path: ['articles', 0, 'url'], label: 'Link (https://…)' },
    { path: ['articles', 0, 'picurl'], label: 'Picture URL', optional: true },
  ],
  mpnewsarticle: [
    { path: ['article_id'], label: 'article_id', hint: 'The id of an article published from the account.' },
  ],
  miniprogrampage: [
    { path: ['title'], label: 'Title', optional: true },
    { path: ['appid'], label: 'Mini program appid' },
    { path: ['pagepath'], label: 'Page path', hint: 'e.g. pages/index/index?from=drip' },
    { path: ['thumb_media_id'], label: 'Card image media_id' },
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

function specForm(kind: Exclude<Kind, 'json' | 'msgmenu'>, message: Json | null): MessageForm {
  const body = message?.msgtype === kind ? message[kind] : undefined;
  const rows = SPECS[kind].map((spec) => {
    const control = textControl(valueAt(body, spec.path), spec.multiline, spec.path.join('.'));
    const row = field(spec.label + (spec.optional ? ' (optional)' : ''), control, { hint: spec.hint });
    return { spec, control, row };
  });
  const extras = kind === 'text' ? linkHelper(rows[0].control as HTMLTextAreaElement) : null;
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

/** Inserts `<a href="…">…</a>` at the cursor: WeChat's markup for a link inside a text message. */
function linkHelper(textarea: HTMLTextAreaElement): HTMLElement {
  const url = h('input', { type: 'url', placeholder: 'https://…', 'aria-label': 'Link URL' });
  const words = h('input', { type: 'text', placeholder: 'link words', 'aria-label': 'Link words' });
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
    h('span', { class: 'label' }, 'Add a link'),
    url,
    words,
    h('button', { type: 'button', class: 'secondary small', onclick: insert }, 'Insert link'),
  );
}

function menuForm(message: Json | null): MessageForm {
  const body = (message?.msgtype === 'msgmenu' ? message.msgmenu : undefined) as
    { head_content?: string; tail_content?: string; list?: { id?: string; content?: string }[] } | undefined;
  const head = textControl(body?.head_content ?? '', false, 'head_content');
  const tail = textControl(body?.tail_content ?? '', false, 'tail_content');
  const headRow = field('Text above the options (optional)', head);
  const tailRow = field('Text below the options (optional)', tail);
  const list = h('div', { class: 'menu-items' });
  const items: { row: HTMLElement; id: HTMLInputElement; content: HTMLInputElement }[] = [];
  const listRow = h(
    'div',
    { class: 'field' },
    h('span', { class: 'label' }, 'Options (a tap counts as a click)'),
    list,
  );
  const renderItems = () =>
    replace(
      list,
      items.map((i) => i.row),
    );
  const addItem = (id: string, content: string) => {
    const item = {
      id: textControl(id, false, 'id') as HTMLInputElement,
      content: textControl(content, false, 'content') as HTMLInputElement,
      row: h('div', { class: 'menu-item' }),
    };
    item.id.setAttribute('aria-label', 'Option id');
    item.content.setAttribute('aria-label', 'Option text');
    const remove = () => {
      items.splice(items.indexOf(item), 1);
      renderItems();
      list.dispatchEvent(new Event('input', { bubbles: true }));
    };
    item.row.append(
      item.id,
      item.content,
      h('button', { type: 'button', class: 'link', onclick: remove }, 'Remove'),
    );
    items.push(item);
    renderItems();
  };
  for (const i of body?.list ?? [{ id: '101', content: '' }]) addItem(i.id ?? '', i.content ?? '');
  const add = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      onclick: () => {
        addItem(String(101 + items.length), '');
        list.dispatchEvent(new Event('input', { bubbles: true }));
      },
    },
    'Add option',
  );
  return {
    kind: 'msgmenu',
    el: h('div', { class: 'message-form' }, headRow, listRow, add, tailRow),
    read(prefix) {
      const at = `${prefix}.msgmenu`;
      headRow.dataset.path = `${at}.head_content`;
      tailRow.dataset.path = `${at}.tail_content`;
      listRow.dataset.path = `${at}.list`;
      items.forEach((item, n) => (item.row.dataset.path = `${at}.list.${n}`));
      return {
        msgtype: 'msgmenu',
        msgmenu: {
          ...(head.value ? { head_content: head.value } : {}),
          list: items.map((i) => ({ id: i.id.value, content: i.content.value })),
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
  const row = field('Message JSON (a WeChat customer-service payload without touser)', area);
  return {
    kind: 'json',
    el: h('div', { class: 'message-form' }, row),
    read(prefix, problems) {
      row.dataset.path = prefix;
      try {
        const parsed = JSON.parse(area.value) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
        problems.push({ path: prefix, message: 'must be a JSON object' });
      } catch (err) {
        problems.push({ path: prefix, message: `is not valid JSON: ${(err as Error).message}` });
      }
      return {};
    },
  };
}

/** The kind of form for a stored message: its msgtype when there is a form for it, JSON otherwise. */
export function kindOf(message: Json | null): Kind {
  const type = message?.msgtype;
  return KINDS.some(([k]) => k === type && k !== 'json') ? (type as Kind) : message ? 'json' : 'text';
}

/** A form for `kind`, prefilled from `message` when it is of that kind. */
export function createMessageForm(kind: Kind, message: Json | null): MessageForm {
  if (kind === 'json') return jsonForm(message);
  if (kind === 'msgmenu') return menuForm(message);
  return specForm(kind, message);
}
