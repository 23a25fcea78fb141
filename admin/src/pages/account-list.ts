import { h, replace } from '../dom.js';
import { when } from '../format.js';
import { t } from '../i18n/index.js';
import { BASE, type PageFactory } from '../router.js';
import type { Account, AccountCheck } from '../types.js';
import { accountActions } from './account-actions.js';
import { connectAction, connectNotice } from './account-connect.js';

/**
 * The accounts, with the server URL to paste into WeChat's console (built from the page's own origin:
 * the API gives the path, the browser knows where it reached the service), and the row actions.
 * At `accounts/<appId>` that account's row is marked; there the platform's callback reports a
 * connected account, and here a refused one.
 */
export const accountListPage: PageFactory = (ctx, params, query) => {
  const { accounts: T, policyNames } = t();
  const list = h('div', { id: 'accounts' });
  const notice = h('div', { id: 'connect-notice' });
  const connect = connectAction(ctx);
  /** The last check of each account, kept across redraws. */
  const checks = new Map<string, AccountCheck>();

  const webhookLine = (a: Account) => {
    if (!a.webhook) return h('p', { class: 'muted small' }, T.noWebhook);
    const url = location.origin + a.webhookUrl;
    const code = h('code', { class: 'code', 'data-webhook-url': a.appId }, url);
    const copy = async () => {
      try {
        // Only secure origins (https, localhost) have a clipboard; elsewhere the URL is selected instead.
        await navigator.clipboard.writeText(url);
        ctx.notify(T.copied(url));
      } catch {
        window.getSelection()?.selectAllChildren(code);
        ctx.notify(T.copyFailed, 'error');
      }
    };
    return h(
      'p',
      { class: 'webhook small' },
      h('span', { class: 'muted' }, `${T.webhookLabel} `),
      code,
      ' ',
      h(
        'button',
        { type: 'button', class: 'link small', 'data-action': 'copy', onclick: () => void copy() },
        T.copy,
      ),
    );
  };

  const checkLine = (a: Account) => {
    const c = checks.get(a.appId);
    return c
      ? h(
          'p',
          { class: `check-result small ${c.ok ? 'ok' : 'error'}`, 'data-check': a.appId, role: 'status' },
          h('strong', {}, c.ok ? T.checkOk : T.checkFailed),
          T.checkedAt(when(c.checkedAt, a.timeZone), T.checkAnswer(c)),
        )
      : null;
  };

  const rows = (a: Account) => {
    const checked = (answer: AccountCheck) => {
      checks.set(a.appId, answer);
      void draw();
    };
    return [
      h(
        'tr',
        { 'data-account': a.appId, class: a.appId === params.appId ? 'focused' : null },
        h('td', {}, h('code', {}, a.appId)),
        h('td', {}, a.name ?? '—'),
        h('td', {}, T.kind[a.kind]),
        h(
          'td',
          {},
          h('span', { class: `badge account-${a.status}`, 'data-status': a.status }, T.status[a.status]),
        ),
        h('td', {}, T.pushModes[a.pushMode]),
        h('td', {}, policyNames[a.policyName]),
        h('td', { class: 'num' }, T.ratePerSecond(a.sendRatePerSecond)),
        h(
          'td',
          { class: 'num', 'data-sent-today': '', title: T.sentTitle },
          T.sentCustom(a.sentToday.custom),
          h('div', { class: 'muted small' }, T.sentTemplate(a.sentToday.template)),
        ),
        h(
          'td',
          { class: 'row-actions' },
          accountActions(ctx, a, () => void draw(), checked),
        ),
      ),
      h(
        'tr',
        { class: 'account-detail', 'data-account-detail': a.appId },
        h('td', { colspan: 9 }, webhookLine(a), checkLine(a)),
      ),
    ];
  };

  async function draw(): Promise<void> {
    try {
      const accounts = await ctx.accounts();
      replace(notice, connectNotice(query, params.appId, accounts));
      replace(
        list,
        h(
          'table',
          { class: 'data' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              T.columns.map((c) => h('th', {}, c)),
              h('th', {}, ''),
            ),
          ),
          h(
            'tbody',
            {},
            accounts.length === 0
              ? h('tr', {}, h('td', { colspan: 9, class: 'empty' }, T.empty))
              : accounts.map(rows),
          ),
        ),
      );
    } catch (err) {
      replace(
        list,
        h('p', { class: 'error' }, T.loadFailed(err instanceof Error ? err.message : String(err))),
      );
    }
  }

  // The page reads the accounts afresh on every visit, and so refreshes the list the other pages use.
  ctx.forgetAccounts();
  void draw();
  const el = h(
    'section',
    {},
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, T.title),
      h(
        'div',
        { class: 'actions' },
        connect.button,
        h(
          'a',
          { class: 'button primary', href: `${BASE}accounts/new`, 'data-action': 'new-account' },
          T.create,
        ),
      ),
    ),
    notice,
    connect.panel,
    list,
  );
  return { title: T.title, el };
};
