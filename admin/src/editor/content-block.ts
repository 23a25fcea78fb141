import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { ErrorDetail, Json, TemplateMessage } from '../types.js';
import { createFallbackForm } from './fallback-form.js';
import type { AccountTools } from './account-tools.js';
import { createMessageForm, kindOf, KINDS, type Kind, type MessageForm } from './message-forms.js';

/** What a step sends: a message and its fallback, with a name and weight when it is one of A/B variants. */
export interface ContentBlock {
  readonly el: HTMLElement;
  /** Shows or hides the variant's name and weight (shown while the step has two or more variants). */
  asVariant(on: boolean): void;
  /** The variant's name as typed. */
  name(): string;
  read(
    at: string,
    problems: ErrorDetail[],
  ): { name: string; weight: number; message: Json; fallback: TemplateMessage | null };
}

interface Initial {
  readonly name?: string;
  readonly weight?: number;
  readonly message?: Json;
  readonly fallback?: TemplateMessage | null;
}

/** One message form with its type select and fallback; `onRemove` set: a button removes the variant. */
export function createContentBlock(
  initial: Initial,
  onRemove: (() => void) | null,
  tools: AccountTools | null = null,
): ContentBlock {
  const { editor: words } = t();
  const name = h('input', { type: 'text', name: 'variant-name', maxlength: 32, value: initial.name ?? '' });
  const weight = h('input', { type: 'number', name: 'variant-weight', min: 1, step: 1 });
  weight.value = String(initial.weight ?? 1);
  const nameRow = field(words.variantName, name);
  const weightRow = field(words.variantWeight, weight, { hint: words.variantWeightHint });
  const head = h(
    'div',
    { class: 'variant-head' },
    nameRow,
    weightRow,
    onRemove
      ? h(
          'button',
          { type: 'button', class: 'link danger', 'data-action': 'remove-variant', onclick: onRemove },
          words.removeVariant,
        )
      : null,
  );

  let message: Json | null = initial.message ?? null;
  const type = h(
    'select',
    { name: 'msgtype' },
    KINDS.map((k) => h('option', { value: k, selected: k === kindOf(message) }, words.kinds[k])),
  );
  const typeRow = field(words.messageType, type);
  let form: MessageForm = createMessageForm(kindOf(message), message, tools);
  const formSlot = h('div', {}, form.el);
  type.addEventListener('change', () => {
    // Switching to JSON carries what was typed; other forms start from what they can read of it.
    form = createMessageForm(type.value as Kind, message, tools);
    formSlot.replaceChildren(form.el);
  });
  const fallback = createFallbackForm(initial.fallback, tools && ((refresh) => tools.templates(refresh)));
  const el = h('div', { class: 'content-block' }, head, typeRow, formSlot, fallback.el);

  return {
    el,
    asVariant(on) {
      head.hidden = !on;
      el.classList.toggle('variant', on);
    },
    name: () => name.value.trim(),
    read(at, problems) {
      nameRow.dataset.path = `${at}.name`;
      weightRow.dataset.path = `${at}.weight`;
      typeRow.dataset.path = `${at}.message.msgtype`;
      const read = form.read(`${at}.message`, problems);
      // kf_account is not on the forms; a message that had one keeps it.
      const customservice = initial.message?.customservice;
      message = form.kind !== 'json' && customservice ? { ...read, customservice } : read;
      return { name: name.value.trim(), weight: Number(weight.value), message, fallback: fallback.read(at) };
    },
  };
}
