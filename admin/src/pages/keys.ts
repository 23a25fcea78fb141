import { accountName } from '../account-label.js';
import { ApiError, seg } from '../api.js';
import { confirmDialog } from '../dialog.js';
import { field, h, replace } from '../dom.js';
import { clearErrors, showErrors } from '../editor/field-errors.js';
import { when, zoneOf } from '../format.js';
import { t } from '../i18n/index.js';
import type { PageFactory } from '../router.js';
import type { Account, CreatedKey, KeyList, KeyOperation, KeyView } from '../types.js';

/** The operations a key may be given, in the order the form shows them (docs/api.md "API keys"). */
const OPERATIONS: readonly KeyOperation[] = ['schedule', 'cancel', 'read'];

/** A checkbox with its words beside it, for a list of choices. */
function choice(name: string, value: string, text: string, hint?: string): HTMLLabelElement {
  return h(
    'label',
    { class: 'choice' },
    h('input', { type: 'checkbox', name, value }),
    h('span', {}, text),
    hint ? h('span', { class: 'muted small' }, ` — ${hint}`) : null,
  );
}

const checked = (root: ParentNode, name: string): string[] =>
  [...root.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((i) => i.value);

/**
 * The integrations' API keys: make one for some accounts and operations (its value shown once, to copy),
 * see each key by name and last four characters, revoke one. The admin token only: the API refuses keys here.
 */
export const keysPage: PageFactory = (ctx) => {
  const T = t().keys;
  let accounts: Account[] = [];
  const problem = h('div', {});
  const shown = h('div', {});
  const tbody = h(
    'tbody',
    {},
    h('tr', {}, h('td', { colspan: T.columns.length, class: 'empty' }, t().common.loading)),
  );

  const name = h('input', {
    type: 'text',
    name: 'name',
    maxlength: 100,
    required: true,
    autocomplete: 'off',
  });
  const accountChoices = h('div', { class: 'choices' });
  const operationChoices = h(
    'div',
    { class: 'choices' },
    OPERATIONS.map((op) => choice('operation', op, T.operationNames[op], T.operationHints[op])),
  );
  const create = h('button', { type: 'submit', class: 'primary', 'data-action': 'create-key' }, T.create);
  const summary = h('div', {});
  const form = h(
    'form',
    { class: 'key-form', novalidate: true },
    h('h2', {}, T.newKey),
    field(T.name, name, { path: 'name', hint: T.nameHint }),
    h(
      'div',
      { class: 'field', 'data-path': 'accounts' },
      h('span', { class: 'label' }, T.accounts),
      accountChoices,
    ),
    h(
      'div',
      { class: 'field', 'data-path': 'operations' },
      h('span', { class: 'label' }, T.operations),
      operationChoices,
    ),
    summary,
    h('div', { class: 'actions' }, create),
  );

  const operationWords = (ops: readonly string[]) =>
    ops.map((op) => (op in T.operationNames ? T.operationNames[op as KeyOperation] : op)).join(T.joiner);

  const row = (k: KeyView) => {
    const revoke =
      k.revokedAt === null
        ? h(
            'button',
            {
              type: 'button',
              class: 'link danger',
              'data-action': 'revoke',
              onclick: () => void revokeKey(k),
            },
            T.revoke,
          )
        : null;
    return h(
      'tr',
      { 'data-key': k.id, class: k.revokedAt ? 'revoked' : '' },
      h('td', {}, k.name),
      h('td', {}, h('code', {}, k.hint)),
      h(
        'td',
        {},
        k.accounts.map((a) => h('span', { class: 'line' }, accountName(accounts, a))),
      ),
      h('td', {}, operationWords(k.operations)),
      h('td', { class: 'when' }, when(k.createdAt, zoneOf(accounts, k.accounts[0]))),
      h(
        'td',
        { class: 'status' },
        k.revokedAt ? T.revokedAt(when(k.revokedAt, zoneOf(accounts, k.accounts[0]))) : T.active,
      ),
      h('td', {}, revoke),
    );
  };

  async function load(): Promise<void> {
    try {
      const { keys } = await ctx.api.get<KeyList>('/keys');
      replace(
        tbody,
        keys.length === 0
          ? h('tr', {}, h('td', { colspan: T.columns.length, class: 'empty' }, T.empty))
          : keys.map(row),
      );
      replace(problem);
    } catch (err) {
      replace(
        problem,
        h('p', { class: 'error' }, T.loadFailed(err instanceof Error ? err.message : String(err))),
      );
    }
  }

  async function revokeKey(k: KeyView): Promise<void> {
    const sure = await confirmDialog({
      title: T.revokeTitle(k.name),
      body: [T.revokeBody],
      confirm: T.revoke,
      danger: true,
    });
    if (!sure) return;
    try {
      await ctx.api.del<KeyView>(`/keys/${seg(k.id)}`);
      ctx.notify(T.revoked(k.name));
    } catch (err) {
      ctx.notify(err instanceof Error ? err.message : String(err), 'error');
    }
    await load();
  }

  /** The new key, to copy now: nothing shows it again. */
  function showCreated(created: CreatedKey): void {
    const value = h('input', {
      type: 'text',
      readonly: true,
      value: created.key,
      'data-created-key': '',
      class: 'key-value',
    });
    const copy = h('button', { type: 'button', class: 'secondary' }, T.copy);
    copy.addEventListener('click', () => {
      value.select();
      void navigator.clipboard?.writeText(created.key).then(() => (copy.textContent = T.copied));
    });
    const done = h('button', { type: 'button', class: 'primary', 'data-action': 'key-saved' }, T.done);
    done.addEventListener('click', () => replace(shown));
    replace(
      shown,
      h(
        'div',
        { class: 'key-created', role: 'status' },
        h('h2', {}, T.createdTitle(created.name)),
        h('p', {}, T.shownOnce),
        h('div', { class: 'key-copy' }, value, copy),
        h('div', { class: 'actions' }, done),
      ),
    );
    value.focus();
    value.select();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    replace(summary);
    create.disabled = true;
    create.textContent = T.creating;
    const body = {
      name: name.value,
      accounts: checked(form, 'account'),
      operations: checked(form, 'operation'),
    };
    ctx.api
      .post<CreatedKey>('/keys', body)
      .then(async (created) => {
        form.reset();
        showCreated(created);
        await load();
      })
      .catch((err: unknown) => {
        const details = err instanceof ApiError ? err.details : [];
        const unplaced = showErrors(form, details);
        const { common } = t();
        replace(
          summary,
          h(
            'p',
            { class: 'error' },
            details.length ? common.notSaved(details.length) : common.notSavedBecause((err as Error).message),
            unplaced.map((d) => h('span', { class: 'block' }, d.message)),
          ),
        );
      })
      .finally(() => {
        create.disabled = false;
        create.textContent = T.create;
      });
  });

  async function start(): Promise<void> {
    accounts = await ctx.accounts().catch((): Account[] => []);
    replace(
      accountChoices,
      accounts.length === 0
        ? h('p', { class: 'muted' }, T.noAccounts)
        : accounts.map((a) =>
            choice('account', a.appId, accountName(accounts, a.appId), a.name ? a.appId : undefined),
          ),
    );
    await load();
  }
  void start();

  const el = h(
    'section',
    { class: 'keys' },
    h('div', { class: 'page-head' }, h('h1', {}, T.title)),
    h('p', { class: 'muted' }, T.intro),
    problem,
    shown,
    h(
      'table',
      { class: 'data', id: 'keys' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          T.columns.map((c) => h('th', {}, c)),
        ),
      ),
      tbody,
    ),
    form,
  );
  return { title: T.title, el };
};
