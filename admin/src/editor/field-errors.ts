import { h } from '../dom.js';
import type { ErrorDetail } from '../types.js';

/**
 * Finds the element an API error belongs to: the element whose `data-path` is the error's path, or the
 * nearest ancestor path that has one (`steps.2.message.news.articles.0.url` → … → `steps.2`).
 */
export function targetOf(root: ParentNode, path: string): HTMLElement | null {
  const parts = path.split('.');
  while (parts.length > 0) {
    const el = root.querySelector<HTMLElement>(`[data-path="${CSS.escape(parts.join('.'))}"]`);
    if (el) return el;
    parts.pop();
  }
  return null;
}

export function clearErrors(root: ParentNode): void {
  root.querySelectorAll('.field-error').forEach((e) => e.remove());
  root.querySelectorAll('.invalid').forEach((e) => e.classList.remove('invalid'));
}

/**
 * Shows each error next to its field, in the API's words. `visible` decides which fields may show one
 * (before the first save, only fields the user has touched). Returns the errors that have no field, for
 * a summary.
 */
export function showErrors(
  root: ParentNode,
  details: readonly ErrorDetail[],
  visible: (target: HTMLElement) => boolean = () => true,
): ErrorDetail[] {
  clearErrors(root);
  const unplaced: ErrorDetail[] = [];
  for (const d of details) {
    const target = targetOf(root, d.path);
    if (!target) {
      unplaced.push(d);
      continue;
    }
    if (!visible(target)) continue;
    target.classList.add('invalid');
    const slot = target.querySelector(':scope > .error-slot') ?? target;
    // Errors deeper than the field say which part ("articles.0.url: must be an http(s) URL").
    const own = target.dataset.path ?? '';
    const rest = d.path.length > own.length ? `${d.path.slice(own.length + 1)}: ` : '';
    slot.append(h('p', { class: 'field-error', role: 'alert', 'data-error-path': d.path }, rest + d.message));
  }
  return unplaced;
}
