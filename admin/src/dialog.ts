import { h } from './dom.js';
import { t } from './i18n/index.js';

/**
 * A modal confirmation (the native <dialog>, so focus and Escape behave). Resolves true when the user
 * confirms. `danger` paints the confirm button red for actions that cancel messages.
 */
export function confirmDialog(opts: {
  title: string;
  body: (string | HTMLElement)[];
  confirm: string;
  danger?: boolean;
}): Promise<boolean> {
  return new Promise((resolve) => {
    const cancelButton = h('button', { type: 'button', class: 'secondary' }, t().common.dismiss);
    const confirmButton = h(
      'button',
      { type: 'button', class: opts.danger ? 'danger' : 'primary', 'data-test': 'confirm' },
      opts.confirm,
    );
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      h('h2', { id: 'confirm-title' }, opts.title),
      ...opts.body.map((b) => (typeof b === 'string' ? h('p', {}, b) : b)),
      h('div', { class: 'actions' }, cancelButton, confirmButton),
    );
    const finish = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    cancelButton.addEventListener('click', () => finish(false));
    confirmButton.addEventListener('click', () => finish(true));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancelButton.focus();
  });
}
