import { ApiError, seg } from '../api.js';
import { field, h, replace } from '../dom.js';
import { clearErrors, showErrors } from '../editor/field-errors.js';
import { secretField, type SecretField } from '../editor/secret-field.js';
import { windowPolicyField } from '../editor/window-policy-field.js';
import { DEFAULT_TIME_ZONE } from '../format.js';
import { t } from '../i18n/index.js';
import { BASE, type AppContext, type PageFactory } from '../router.js';
import type { Account } from '../types.js';

const PUSH_MODES = ['plaintext', 'compatible', 'safe'] as const;
/** The write-only fields; each `name` is also its label's key in the catalog. */
const SECRETS = [
  { name: 'secret', has: 'hasSecret', clearable: false },
  { name: 'token', has: 'webhook', clearable: true, hint: 'tokenHint' },
  { name: 'encodingAESKey', has: 'hasEncodingAESKey', clearable: true },
  { name: 'previousEncodingAESKey', has: 'hasPreviousEncodingAESKey', clearable: true },
] as const;

/**
 * Creates an account (`accounts/new`) or edits one (`accounts/:appId/edit`). The secrets are write-only:
 * the form shows whether each is set and sends only what was typed or removed. The API's 400 details
 * land next to the fields they name; after a save the app's account list is read again.
 */
export const accountFormPage: PageFactory = (ctx, params) => {
  const T = t().accounts;
  const el = h('section', { id: 'account-form' }, h('p', { class: 'muted' }, t().common.loading));
  const appId = params.appId ?? null;
  const load = appId
    ? ctx.api.get<Account>(`/accounts/${seg(appId)}`)
    : Promise.resolve<Account | null>(null);
  load
    .then((account) => replace(el, accountForm(ctx, account)))
    .catch((err: unknown) =>
      replace(
        el,
        h('h1', {}, T.title),
        h(
          'p',
          { class: 'error' },
          err instanceof ApiError && err.status === 404 ? T.notFound(appId ?? '') : String(err),
        ),
      ),
    );
  return { title: appId ? T.editTitle(appId) : T.newTitle, el };
};

function accountForm(ctx: AppContext, account: Account | null): HTMLElement {
  const { accounts: T, common } = t();
  const editing = account !== null;
  const appIdInput = h('input', { type: 'text', name: 'appId', spellcheck: false, maxlength: 64 });
  const name = h('input', { type: 'text', name: 'name', maxlength: 100 });
  name.value = account?.name ?? '';
  const secrets = SECRETS.map((s) => ({
    name: s.name,
    field: secretField({
      name: s.name,
      label: T.fields[s.name],
      known: account ? account[s.has] : null,
      clearable: s.clearable,
      words: T,
      hint: 'hint' in s ? T.fields[s.hint] : undefined,
    }),
  }));
  const pushMode = h(
    'select',
    { name: 'pushMode' },
    PUSH_MODES.map((m) =>
      h('option', { value: m, selected: m === (account?.pushMode ?? 'plaintext') }, T.pushModes[m]),
    ),
  );
  const policy = windowPolicyField(
    account ? { name: account.policyName, rules: account.windowPolicy } : null,
    {
      label: T.fields.windowPolicy,
      presets: T.presets,
      ruleFor: T.ruleFor,
      ruleCount: T.ruleCount,
      ruleWithin: T.ruleWithin,
    },
  );
  const rate = h('input', { type: 'number', name: 'sendRatePerSecond', min: 1, step: 1 });
  rate.value = String(account?.sendRatePerSecond ?? 1000);
  const cap = h('input', { type: 'number', name: 'frequencyCapPerDay', min: 1, max: 100, step: 1 });
  cap.value = account?.frequencyCapPerDay == null ? '' : String(account.frequencyCapPerDay);
  const timeZone = h('input', { type: 'text', name: 'timeZone', spellcheck: false, maxlength: 64 });
  timeZone.value = account?.timeZone ?? DEFAULT_TIME_ZONE;
  const quietStart = h('input', { type: 'time', step: 1, name: 'quietStart' });
  const quietEnd = h('input', { type: 'time', step: 1, name: 'quietEnd' });
  quietStart.value = account?.quietHours?.start ?? '';
  quietEnd.value = account?.quietHours?.end ?? '';
  const atLeastOnce = checkbox('atLeastOnce', account?.atLeastOnce ?? false);
  const enabled = checkbox('enabled', account?.enabled ?? true);
  const summary = h('div', { class: 'save-summary', role: 'status' });
  const save = h(
    'button',
    { type: 'submit', class: 'primary', 'data-test': 'save-account' },
    editing ? T.save : T.add,
  );

  const body = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      name: name.value.trim() === '' ? null : name.value.trim(),
      pushMode: pushMode.value,
      windowPolicy: policy.value(),
      // An empty rate is sent as it is (null), so that the API names the field.
      sendRatePerSecond: rate.value === '' ? null : Number(rate.value),
      frequencyCapPerDay: cap.value === '' ? null : Number(cap.value),
      timeZone: timeZone.value.trim(),
      // Both empty: none; one of them empty is sent as it is, so that the API names the field.
      quietHours:
        quietStart.value === '' && quietEnd.value === ''
          ? null
          : { start: quietStart.value, end: quietEnd.value },
      atLeastOnce: atLeastOnce.checked,
      enabled: enabled.checked,
    };
    if (!editing) out.appId = appIdInput.value.trim();
    for (const s of secrets) writeSecret(out, s.name, s.field, editing);
    return out;
  };

  const form = h(
    'form',
    { class: 'card account-form', novalidate: true },
    editing ? null : field(T.fields.appId, appIdInput, { path: 'appId', hint: T.fields.appIdHint }),
    field(T.fields.name, name, { path: 'name' }),
    secrets.map((s) => s.field.el),
    field(T.fields.pushMode, pushMode, { path: 'pushMode' }),
    policy.el,
    field(T.fields.sendRate, rate, { path: 'sendRatePerSecond' }),
    field(T.fields.frequencyCap, cap, { path: 'frequencyCapPerDay' }),
    field(T.fields.timeZone, timeZone, { path: 'timeZone', hint: T.fields.timeZoneHint }),
    h(
      'div',
      { class: 'two', 'data-path': 'quietHours' },
      field(T.fields.quietStart, quietStart, { path: 'quietHours.start', hint: T.fields.quietHint }),
      field(T.fields.quietEnd, quietEnd, { path: 'quietHours.end' }),
    ),
    h(
      'div',
      { class: 'field', 'data-path': 'atLeastOnce' },
      h('label', { class: 'check' }, atLeastOnce, T.fields.atLeastOnce),
    ),
    h(
      'div',
      { class: 'field', 'data-path': 'enabled' },
      h('label', { class: 'check' }, enabled, T.fields.enabled),
    ),
    summary,
    h(
      'div',
      { class: 'actions' },
      h('a', { class: 'button secondary', href: `${BASE}accounts` }, common.cancel),
      save,
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    save.disabled = true;
    clearErrors(form);
    replace(summary);
    const request = account
      ? ctx.api.patch<Account>(`/accounts/${seg(account.appId)}`, body())
      : ctx.api.post<Account>('/accounts', body());
    request
      .then((saved) => {
        ctx.forgetAccounts();
        ctx.notify(editing ? T.saved(saved.appId) : T.created(saved.appId));
        ctx.navigate('accounts');
      })
      .catch((err: unknown) => {
        save.disabled = false;
        const details = err instanceof ApiError ? err.details : [];
        const unplaced = showErrors(form, details);
        replace(
          summary,
          h(
            'p',
            { class: 'error' },
            details.length ? common.notSaved(details.length) : common.notSavedBecause((err as Error).message),
            unplaced.map((d) => h('span', { class: 'block' }, `${d.path}: ${d.message}`)),
          ),
        );
      });
  });
  return h('div', {}, h('h1', {}, account ? T.editTitle(account.appId) : T.newTitle), form);
}

function checkbox(name: string, checked: boolean): HTMLInputElement {
  const box = h('input', { type: 'checkbox', name });
  box.checked = checked;
  return box;
}

/**
 * Puts a secret field into the body: when editing, only what changed (left out = keep); when creating,
 * the AppSecret always (empty, so that the API names it as required) and the optional ones when typed.
 */
function writeSecret(out: Record<string, unknown>, name: string, f: SecretField, editing: boolean): void {
  const value = f.value();
  if (editing) {
    if (value !== undefined) out[name] = value;
  } else if (name === 'secret') out[name] = value ?? '';
  else if (value !== null) out[name] = value;
}
