import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { LibraryTemplateView } from '../types.js';
import type { AccountTools } from './account-tools.js';

/** Reads the account's template library; `refresh` asks WeChat again. */
export type TemplateSource = AccountTools['templates'];

export interface TemplatePicker {
  readonly el: HTMLElement;
  /** Shows or hides it (a subscription notice's templates are not in this library). */
  show(visible: boolean): void;
}

/**
 * "Choose from the template library": loads the account's templates when first opened, lists them by title,
 * and hands the chosen one to `onPick` (which fills the template id and one data row per field). The
 * content is shown as WeChat words it, so that the marketer sees what each field is for.
 */
export function createTemplatePicker(
  source: TemplateSource,
  onPick: (template: LibraryTemplateView) => void,
): TemplatePicker {
  const words = t().editor.fallback;
  const select = h('select', { name: 'template-pick', 'aria-label': words.pickLabel });
  const content = h('pre', { class: 'template-content', hidden: true });
  const status = h('p', { class: 'hint', role: 'status' });
  const refresh = h(
    'button',
    { type: 'button', class: 'link small', 'data-action': 'refresh-templates' },
    words.refresh,
  );
  const panel = h('div', { class: 'template-picker-panel', hidden: true }, select, refresh, status, content);
  let templates: readonly LibraryTemplateView[] = [];

  const load = async (again: boolean) => {
    status.textContent = t().common.loading;
    select.disabled = true;
    try {
      const library = await source(again);
      templates = library.templates;
      status.textContent = !library.ok
        ? words.libraryUnavailable
        : templates.length
          ? ''
          : words.libraryEmpty;
      select.replaceChildren(
        h('option', { value: '' }, words.pickPrompt),
        ...templates.map((tpl) =>
          h('option', { value: tpl.templateId }, words.templateOption(tpl.title, tpl.templateId)),
        ),
      );
      select.disabled = templates.length === 0;
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
    }
  };
  select.addEventListener('change', () => {
    const chosen = templates.find((tpl) => tpl.templateId === select.value);
    content.hidden = !chosen;
    content.textContent = chosen?.content ?? '';
    if (chosen) onPick(chosen);
  });
  refresh.addEventListener('click', () => void load(true));
  const open = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      'data-action': 'pick-template',
      onclick: () => {
        panel.hidden = !panel.hidden;
        if (!panel.hidden && templates.length === 0) void load(false);
      },
    },
    words.pick,
  );
  const el = h('div', { class: 'template-picker' }, open, panel);
  return {
    el,
    show(visible) {
      el.hidden = !visible;
    },
  };
}
