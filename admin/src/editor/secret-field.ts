import { field, h } from '../dom.js';

/** The words a write-only field shows; the page passes its own (they live in its text catalog). */
export interface SecretWords {
  readonly set: string;
  readonly notSet: string;
  readonly willRemove: string;
  readonly clear: string;
  readonly undo: string;
  readonly keepHint: string;
}

export interface SecretField {
  readonly el: HTMLElement;
  /**
   * What to send: undefined keeps the stored value (nothing typed), null removes it (the Remove button),
   * a string replaces it.
   */
  value(): string | null | undefined;
}

/**
 * A write-only field (AppSecret, push token, EncodingAESKeys): the page never holds the stored value,
 * only whether one is set, so it shows "set" / "not set" and an empty input that means "keep".
 * `clearable` offers Remove where the API accepts null; `known` is null when creating.
 */
export function secretField(opts: {
  name: string;
  label: string;
  known: boolean | null;
  clearable: boolean;
  words: SecretWords;
  hint?: string;
}): SecretField {
  const { words } = opts;
  const input = h('input', {
    type: 'password',
    name: opts.name,
    autocomplete: 'new-password',
    spellcheck: false,
  });
  const state = h('span', { class: 'secret-state', 'data-secret-state': opts.name });
  let removing = false;
  const toggle = h('button', { type: 'button', class: 'link small', 'data-clear': opts.name });
  const draw = () => {
    state.textContent = removing ? words.willRemove : opts.known ? words.set : words.notSet;
    state.className = `secret-state badge ${removing ? 'msg-cancelled' : opts.known ? 'msg-sent' : ''}`;
    toggle.textContent = removing ? words.undo : words.clear;
    toggle.hidden = !opts.clearable || !opts.known;
    input.disabled = removing;
  };
  toggle.addEventListener('click', () => {
    removing = !removing;
    if (removing) input.value = '';
    draw();
  });
  draw();
  const editing = opts.known !== null;
  const hint = [opts.hint, editing ? words.keepHint : null].filter(Boolean).join(' ');
  const row = field(opts.label, input, { path: opts.name, hint: hint || undefined });
  if (editing) row.append(h('div', { class: 'secret-line' }, state, toggle));
  return {
    el: row,
    value: () => (removing ? null : input.value === '' ? (editing ? undefined : null) : input.value),
  };
}
