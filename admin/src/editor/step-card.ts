import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { ErrorDetail, Step } from '../types.js';
import { type ContentBlock, createContentBlock } from './content-block.js';
import { createDurationInput } from './duration-input.js';
import type { AccountTools } from './account-tools.js';

/** The names new variants get, one per variant an A/B step may have (at most five). */
const VARIANT_NAMES = ['A', 'B', 'C', 'D', 'E'];

/**
 * One step of the editor: when (in friendly units, after the trigger or — a last-chance step — before the
 * contact window closes), what (a message form) and its fallback — or, after
 * "add variant", two to five named, weighted variants of them (an A/B step).
 */
export interface StepCard {
  readonly el: HTMLElement;
  /**
   * Reads the step as the API takes it, labelling fields with their `<prefix>steps.<index>…` paths (the
   * prefix is `paths.<name>.` on a named path of a journey).
   */
  read(prefix: string, index: number, problems: ErrorDetail[]): Step;
  /** Shows the API's warnings about this step (template fields, template ids), or none. */
  showWarnings(warnings: readonly ErrorDetail[]): void;
}

/** `onPath`: a step of a named path of a journey, timed after its path starts rather than after the trigger. */
export function createStepCard(
  initial: Step | null,
  onRemove: (card: StepCard) => void,
  onPath = false,
  tools: AccountTools | null = null,
): StepCard {
  const { editor: words } = t();
  const lastChance = initial?.beforeWindowCloseMs !== undefined;
  // After the trigger (or its path's start), or before the follower's contact window closes: a last-chance step.
  const timing = h(
    'select',
    { name: 'timing', 'aria-label': words.timing },
    h(
      'option',
      { value: 'after', selected: !lastChance },
      onPath ? t().journey.timingAfterPathStart : words.timingAfter,
    ),
    h('option', { value: 'beforeClose', selected: lastChance }, words.timingBeforeClose),
  );
  const offset = createDurationInput(
    initial?.beforeWindowCloseMs ?? initial?.offsetMs ?? 0,
    'offset',
    timing,
  );
  const offsetRow = field(words.sendAt, offset.el);

  const blocksEl = h('div', { class: 'content-blocks' });
  const blocks: ContentBlock[] = [];
  const layout = () => {
    blocks.forEach((b) => b.asVariant(blocks.length > 1));
    addVariant.hidden = blocks.length >= VARIANT_NAMES.length;
    blocksEl.replaceChildren(...blocks.map((b) => b.el));
  };
  const addBlock = (content: Parameters<typeof createContentBlock>[0]) => {
    const block: ContentBlock = createContentBlock(
      content,
      blocks.length === 0
        ? null
        : () => {
            blocks.splice(blocks.indexOf(block), 1);
            layout();
            blocksEl.dispatchEvent(new Event('input', { bubbles: true }));
          },
      tools,
    );
    blocks.push(block);
    layout();
  };
  // A step with one message becomes an A/B step: its message is variant A.
  const addVariant = h(
    'button',
    {
      type: 'button',
      class: 'link',
      'data-action': 'add-variant',
      onclick: () => {
        const name = VARIANT_NAMES.find((n) => !blocks.some((b) => b.name() === n));
        if (name === undefined) return;
        addBlock({ name, weight: 1 });
        blocksEl.dispatchEvent(new Event('input', { bubbles: true }));
      },
    },
    words.addVariant,
  );
  for (const content of initial?.variants ?? [{ ...initial, name: VARIANT_NAMES[0] }]) addBlock(content);

  const title = h('h3', {}, words.stepTitle);
  const error = h('div', { class: 'error-slot' });
  const warnings = h('ul', {
    class: 'window-warnings step-warnings',
    'data-test': 'step-warnings',
    hidden: true,
  });
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
    h('div', { class: 'step-when' }, offsetRow),
    blocksEl,
    warnings,
    addVariant,
  );

  const card: StepCard = {
    el,
    showWarnings(list) {
      warnings.replaceChildren(
        ...list.map((w) => h('li', { class: 'fallback', 'data-path': w.path }, t().errors.detail(w))),
      );
      warnings.hidden = list.length === 0;
    },
    read(prefix, index, problems) {
      const at = `${prefix}steps.${index}`;
      el.dataset.path = at;
      el.dataset.step = String(index + 1);
      title.textContent = words.step(index + 1);
      const beforeClose = timing.value === 'beforeClose';
      const path = beforeClose ? `${at}.beforeWindowCloseMs` : `${at}.offsetMs`;
      offsetRow.dataset.path = path;
      const read = offset.ms();
      if (read === null || Number.isNaN(read)) problems.push({ path, message: words.offsetProblem });
      const ms = read !== null && Number.isFinite(read) ? read : 0;
      const when = {
        offsetMs: beforeClose ? 0 : ms,
        ...(beforeClose ? { beforeWindowCloseMs: ms } : {}),
        ...(initial?.maxLatenessMs ? { maxLatenessMs: initial.maxLatenessMs } : {}),
      };
      if (blocks.length > 1) {
        return { ...when, variants: blocks.map((b, j) => b.read(`${at}.variants.${j}`, problems)) };
      }
      const { message, fallback } = blocks[0].read(at, problems);
      return { ...when, message, ...(fallback ? { fallback } : {}) };
    },
  };
  return card;
}
