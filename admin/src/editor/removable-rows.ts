import { h, replace } from '../dom.js';
import { t } from '../i18n/index.js';

/** A list of rows the user adds and removes (a template's data fields, a menu's options). */
export interface RemovableRows<R extends { readonly row: HTMLElement }> {
  readonly el: HTMLElement;
  /** The rows in the order shown. */
  readonly rows: readonly R[];
  /** Shows `r`, its `controls` followed by a Remove button. */
  add(r: R, controls: readonly HTMLElement[]): void;
  /** Removes every row (before adding another set: a template's fields when one is chosen). */
  clear(): void;
  /** A button that adds the row `make` builds (with `add`). */
  addButton(label: string, make: () => void): HTMLButtonElement;
}

/**
 * Adding or removing a row tells the form (an `input` event on the list), as typing in one does: the
 * previews and the API's check follow.
 */
export function createRemovableRows<R extends { readonly row: HTMLElement }>(
  listClass: string,
): RemovableRows<R> {
  const el = h('div', { class: listClass });
  const rows: R[] = [];
  const changed = () => {
    replace(
      el,
      rows.map((r) => r.row),
    );
    el.dispatchEvent(new Event('input', { bubbles: true }));
  };
  return {
    el,
    rows,
    add(r, controls) {
      const remove = () => {
        rows.splice(rows.indexOf(r), 1);
        changed();
      };
      r.row.append(
        ...controls,
        h('button', { type: 'button', class: 'link', onclick: remove }, t().common.remove),
      );
      rows.push(r);
      changed();
    },
    clear() {
      rows.splice(0);
      changed();
    },
    addButton: (label, make) =>
      h('button', { type: 'button', class: 'secondary small', onclick: make }, label),
  };
}
