import { h, type Child } from '../dom.js';
import { offsetLabel } from '../format.js';
import { t } from '../i18n/index.js';
import { isNotice } from './fallback-form.js';
import type { Json, LibraryTemplateView, TemplateMessage } from '../types.js';
import type { Verdict } from './window-check.js';
import { shownTemplateFields, templateRuleIssues } from '../policy/template-rules.js';

export interface PreviewStep {
  readonly message: Json;
  readonly fallback: TemplateMessage | null;
  readonly verdict: Verdict;
}

/** A template of the account's library by its id; undefined when the library or the id is not known. */
export type TemplateLookup = (templateId: string) => LibraryTemplateView | undefined;

const LINK = /<a\s[^>]*?href\s*=\s*["']([^"']*)["'][^>]*>([\s\S]*?)<\/a>/gi;

/** Text with WeChat's `<a href>` links and line breaks, built as nodes (the content is never parsed as HTML). */
function richText(content: string): Child[] {
  const out: Child[] = [];
  const lines = (text: string) => text.split('\n').flatMap((line, i) => (i ? [h('br'), line] : [line]));
  let last = 0;
  for (const m of content.matchAll(LINK)) {
    out.push(lines(content.slice(last, m.index)));
    const safe = /^https?:\/\//i.test(m[1]);
    out.push(
      safe
        ? h('a', { href: m[1], target: '_blank', rel: 'noopener noreferrer', class: 'wx-link' }, m[2])
        : h('span', { class: 'wx-link' }, m[2]),
    );
    last = m.index + m[0].length;
  }
  out.push(lines(content.slice(last)));
  return out;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});

/** One customer-service message as the follower would see it. */
function bubble(message: Json): HTMLElement {
  const words = t().preview;
  const type = str(message.msgtype);
  const body = obj(message[type]);
  switch (type) {
    case 'text':
      return h('div', { class: 'bubble text' }, richText(str(body.content)) as Child);
    case 'image':
      return h(
        'div',
        { class: 'bubble media' },
        h('div', { class: 'media-box' }, words.image),
        str(body.media_id),
      );
    case 'voice':
      return h('div', { class: 'bubble voice' }, `▶ ))) ${words.voice} `, h('small', {}, str(body.media_id)));
    case 'video':
      return h(
        'div',
        { class: 'bubble media' },
        h('div', { class: 'media-box video' }, '▶'),
        h('strong', {}, str(body.title) || words.video),
        h('div', { class: 'small' }, str(body.description)),
      );
    case 'news': {
      const a = obj((body.articles as unknown[] | undefined)?.[0]);
      const pic = str(a.picurl);
      return h(
        'div',
        { class: 'bubble card news' },
        h('strong', {}, str(a.title) || words.newsTitle),
        h(
          'div',
          { class: 'card-row' },
          h('span', { class: 'small' }, str(a.description)),
          /^https:\/\//.test(pic) ? h('img', { src: pic, alt: '', referrerpolicy: 'no-referrer' }) : null,
        ),
      );
    }
    case 'mpnewsarticle':
      return h(
        'div',
        { class: 'bubble card' },
        h('strong', {}, words.article),
        h('small', {}, str(body.article_id)),
      );
    case 'miniprogrampage':
      return h(
        'div',
        { class: 'bubble card mini' },
        h('small', {}, words.miniProgram),
        h('strong', {}, str(body.title) || str(body.pagepath)),
        h('div', { class: 'media-box' }, str(body.appid)),
      );
    case 'msgmenu': {
      const list = Array.isArray(body.list) ? (body.list as unknown[]).map(obj) : [];
      return h(
        'div',
        { class: 'bubble text' },
        str(body.head_content) ? h('div', {}, str(body.head_content)) : null,
        list.map((i) => h('div', { class: 'wx-link' }, str(i.content) || '…')),
        str(body.tail_content) ? h('div', {}, str(body.tail_content)) : null,
      );
    }
    default:
      return h(
        'div',
        { class: 'bubble card' },
        h('strong', {}, type || words.message),
        h('small', {}, words.noPreview),
      );
  }
}

/**
 * A template message card as 服务通知 shows it. A template message shows what WeChat will (src/policy's
 * rules since 2023-05-04: no first / remark, no colours, emoji stripped), a field it refuses or cuts marked;
 * with the template's title and each field's label (课程名称) when the account's library has the template, its
 * key (thing1) otherwise.
 */
function templateCard(template: TemplateMessage, lookup: TemplateLookup): HTMLElement {
  const words = t().preview;
  const notice = isNotice(template);
  // A subscription notice's templates are not in the account's template library.
  const known = notice ? undefined : lookup(template.template_id);
  const labelOf = (key: string) => known?.fields.find((f) => f.key === key)?.label || key;
  const rows = notice
    ? Object.entries(template.data).map(([k, v]) =>
        h('div', { class: 'tpl-row' }, h('span', {}, k), h('span', {}, v.value)),
      )
    : shownTemplateFields(template.data).map((f) => {
        const marks = [
          f.tooLong ? words.tooLong([...f.value].length) : '',
          f.lineBreak ? words.lineBreak : '',
        ]
          .filter(Boolean)
          .join(' · ');
        return h(
          'div',
          { class: `tpl-row${marks ? ' broken' : ''}`, 'data-field': f.key, title: marks || null },
          h('span', {}, labelOf(f.key)),
          h('span', {}, f.value.replace(/[\r\n\u2028\u2029]+/g, ' ')),
          marks ? h('small', { class: 'tpl-mark' }, marks) : null,
        );
      });
  const hidden =
    !notice &&
    templateRuleIssues(template.data).some((i) => i.kind !== 'too_long' && i.kind !== 'line_break');
  return h(
    'div',
    { class: 'bubble card template' },
    h(
      'small',
      {},
      `${words.serviceNotice} · ${notice ? words.subscriptionNotice : words.template} `,
      template.template_id,
    ),
    known ? h('strong', { class: 'tpl-title' }, known.title) : null,
    rows,
    hidden ? h('small', { class: 'tpl-hidden muted' }, words.hiddenByWechat) : null,
    template.url ? h('div', { class: 'small wx-link' }, words.details) : null,
  );
}

/**
 * The steps as a chat on a phone, each with its offset and what the window rules do to it; `lookup` finds
 * a template fallback's template in the account's library, for its title and field labels.
 */
export function phonePreview(
  steps: readonly PreviewStep[],
  accountName: string,
  lookup: TemplateLookup = () => undefined,
): HTMLElement {
  const words = t().preview;
  return h(
    'div',
    { class: 'phone', 'aria-label': words.label },
    h('div', { class: 'phone-bar' }, accountName || words.account),
    h(
      'div',
      { class: 'phone-chat' },
      steps.length === 0 ? h('p', { class: 'muted small' }, words.empty) : null,
      steps.map(({ message, fallback, verdict }) => {
        const state = !verdict.outside ? 'inside' : fallback ? 'fallback' : 'refused';
        return h(
          'div',
          { class: `chat-step ${state}`, 'data-preview-step': verdict.index + 1 },
          h(
            'div',
            { class: 'chat-time' },
            words.step(verdict.index + 1, offsetLabel(verdict.offsetMs)),
            state === 'fallback'
              ? isNotice(fallback)
                ? words.asNotice
                : words.asTemplate
              : state === 'refused'
                ? words.notDeliverable
                : '',
          ),
          state === 'fallback' && fallback ? templateCard(fallback, lookup) : bubble(message),
        );
      }),
    ),
  );
}
