import { ApiError, seg } from '../api.js';
import { confirmDialog } from '../dialog.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import { BASE, type AppContext } from '../router.js';
import type { Account, AccountCheck as CheckAnswer, AccountDeleted } from '../types.js';

/** An error of the API in its own words; anything else as it says itself. */
export const failure = (err: unknown): string => (err instanceof ApiError ? err.message : String(err));

/**
 * An account row's buttons: Disable / Enable (asks first before disabling), Delete (asks first; says
 * how many pending messages it cancelled) and Check. `changed` redraws the list after a change;
 * `checked` shows a check's answer.
 */
export function accountActions(
  ctx: AppContext,
  a: Account,
  changed: () => void,
  checked: (answer: CheckAnswer) => void,
): HTMLElement[] {
  const T = t().accounts;
  const after = (message: string) => {
    ctx.forgetAccounts();
    ctx.notify(message);
    changed();
  };
  const setEnabled = async (enabled: boolean) => {
    if (!enabled) {
      const go = await confirmDialog({
        title: T.disableTitle(a.appId),
        body: [T.disableBody],
        confirm: T.disable,
        danger: true,
      });
      if (!go) return;
    }
    try {
      await ctx.api.patch<Account>(`/accounts/${seg(a.appId)}`, { enabled });
      after(enabled ? T.enabled(a.appId) : T.disabled(a.appId));
    } catch (err) {
      ctx.notify(failure(err), 'error');
    }
  };
  const remove = async () => {
    const go = await confirmDialog({
      title: T.deleteTitle(a.appId),
      body: [T.deleteBody(a.name ?? a.appId)],
      confirm: T.remove,
      danger: true,
    });
    if (!go) return;
    try {
      const { cancelled, archivedSequences } = await ctx.api.del<AccountDeleted>(`/accounts/${seg(a.appId)}`);
      after(T.deleted(a.appId, cancelled, archivedSequences));
    } catch (err) {
      ctx.notify(failure(err), 'error');
    }
  };
  const checkButton = h(
    'button',
    { type: 'button', class: 'secondary small', 'data-action': 'check' },
    T.check,
  );
  const check = async () => {
    checkButton.disabled = true;
    checkButton.textContent = T.checking;
    try {
      checked(await ctx.api.post<CheckAnswer>(`/accounts/${seg(a.appId)}/check`));
    } catch (err) {
      // The API refuses a check it cannot make (no AppSecret): its words are the answer.
      checked({ ok: false, errcode: null, message: failure(err), checkedAt: new Date().toISOString() });
    }
    checkButton.disabled = false;
    checkButton.textContent = T.check;
  };
  checkButton.addEventListener('click', () => void check());
  return [
    h(
      'a',
      {
        class: 'button secondary small',
        href: `${BASE}accounts/${seg(a.appId)}/edit`,
        'data-action': 'edit',
      },
      T.edit,
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'data-action': a.enabled ? 'disable' : 'enable',
        onclick: () => void setEnabled(!a.enabled),
      },
      a.enabled ? T.disable : T.enable,
    ),
    checkButton,
    h(
      'button',
      { type: 'button', class: 'link danger small', 'data-action': 'delete', onclick: () => void remove() },
      T.remove,
    ),
  ];
}
