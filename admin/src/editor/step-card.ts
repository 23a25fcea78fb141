import { field, h } from '../dom.js';
import { bestUnit, UNITS, unitMs, type UnitName } from '../format.js';
import { t } from '../i18n/index.js';
import type { ErrorDetail, Json, Step } from '../types.js';
import { createFallbackForm } from './fallback-form.js';
import { createMessageForm, kindOf, KINDS, type Kind, type MessageForm } from './message-forms.js';

/** One step of the editor: when (offset in friendly units), what (a message form) and its fallback. */
export interface StepCard {
  readonly el: HTMLElement;
  /** Reads the step as the API takes it, labelling fields with their `steps.<index>…` paths. */
  read(index: number, problems: ErrorDetail[]): Step;
}

export function createStepCard(initial: Step | null, onRemove: (card: StepCard) => void): StepCard {
  const { editor: words, time } = t();
  const start = bestUnit(initial?.offsetMs ?? 0);
  const offset = h('input', { type: 'number', min: 0, step: 'any', name: 'offset', class: 'offset' });
  offset.value = String(start.value);
  const unit = h(
    'select',
    { name: 'unit', 'aria-label': words.unit },
    UNITS.map((u) => h('option', { value: u.name, selected: u.name === start.unit }, time.units[u.name])),
  );
  const offsetRow = field(words.sendAfter, h('span', { class: 'offset-input' }, offset, unit));

  let message: Json | null = initial?.message ?? null;
  const type = h(
    'select',
    { name: 'msgtype' },
    KINDS.map((k) => h('option', { value: k, selected: k === kindOf(message) }, words.kinds[k])),
  );
  const typeRow = field(words.messageType, type);
  let form: MessageForm = createMessageForm(kindOf(message), message);
  const formSlot = h('div', {}, form.el);
  type.addEventListener('change', () => {
    // Switching to JSON carries what was typed; other forms start from what they can read of it.
    form = createMessageForm(type.value as Kind, message);
    formSlot.replaceChildren(form.el);
  });
  const fallback = createFallbackForm(initial?.fallback);

  const title = h('h3', {}, words.stepTitle);
  const error = h('div', { class: 'error-slot' });
  const el = h(
    'article',
    { class: 'step card' },
    h(
      'div',
      { class: 'step-head' },
      title,
      h(
        'button',
        { type: 'button', class: 'link danger', 'data-action': 'remove-step', onclick: () => onRemove(card) },
        words.removeStep,
      ),
    ),
    error,
    h('div', { class: 'step-when' }, offsetRow, typeRow),
    formSlot,
    fallback.el,
  );

  const card: StepCard = {
    el,
    read(index, problems) {
      const at = `steps.${index}`;
      el.dataset.path = at;
      el.dataset.step = String(index + 1);
      title.textContent = words.step(index + 1);
      offsetRow.dataset.path = `${at}.offsetMs`;
      typeRow.dataset.path = `${at}.message.msgtype`;
      const value = Number(offset.value);
      if (offset.value.trim() === '' || !Number.isFinite(value) || value < 0) {
        problems.push({ path: `${at}.offsetMs`, message: words.offsetProblem });
      }
      const offsetMs = Math.round((Number.isFinite(value) ? value : 0) * unitMs(unit.value as UnitName));
      const read = form.read(`${at}.message`, problems);
      // kf_account is not on the forms; a step that had one keeps it.
      const customservice = initial?.message.customservice;
      message = form.kind !== 'json' && customservice ? { ...read, customservice } : read;
      const fb = fallback.read(at);
      return {
        offsetMs,
        message,
        ...(fb ? { fallback: fb } : {}),
        ...(initial?.maxLatenessMs ? { maxLatenessMs: initial.maxLatenessMs } : {}),
      };
    },
  };
  return card;
}
