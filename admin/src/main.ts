import { createApi } from './api.js';
import { h, replace } from './dom.js';
import {
  chooseLanguage,
  currentLanguage,
  LANGUAGE_NAMES,
  LANGUAGES,
  t,
  type Catalog,
  type Language,
} from './i18n/index.js';
import { accountFormPage } from './pages/account-form.js';
import { accountListPage } from './pages/account-list.js';
import { auditLogPage } from './pages/audit-log.js';
import { keysPage } from './pages/keys.js';
import { followerPage } from './pages/follower.js';
import { sequenceEditorPage } from './pages/sequence-editor.js';
import { sequenceListPage } from './pages/sequence-list.js';
import { sequenceResultsPage } from './pages/sequence-results.js';
import { signInPage } from './pages/sign-in.js';
import { testSendPage } from './pages/test-send.js';
import {
  BASE,
  currentPath,
  interceptLinks,
  matchRoute,
  type AppContext,
  type Page,
  type Route,
} from './router.js';
import { clearToken, readToken } from './session.js';
import type { Account } from './types.js';

// Order matters: literal segments ("new") before parameters (":id").
const ROUTES: readonly Route[] = [
  { pattern: 'sign-in', page: signInPage, public: true },
  { pattern: '', page: sequenceListPage },
  { pattern: 'sequences', page: sequenceListPage },
  { pattern: 'sequences/new', page: sequenceEditorPage },
  { pattern: 'sequences/:id/edit', page: sequenceEditorPage },
  { pattern: 'sequences/:id', page: sequenceResultsPage },
  { pattern: 'followers', page: followerPage },
  { pattern: 'test-send', page: testSendPage },
  { pattern: 'accounts', page: accountListPage },
  { pattern: 'accounts/new', page: accountFormPage },
  { pattern: 'accounts/:appId/edit', page: accountFormPage },
  { pattern: 'accounts/:appId', page: accountListPage },
  { pattern: 'audit', page: auditLogPage },
  { pattern: 'keys', page: keysPage },
];

const NAV: readonly [string, keyof Catalog['app']['nav']][] = [
  ['sequences', 'sequences'],
  ['followers', 'followers'],
  ['test-send', 'testSend'],
  ['accounts', 'accounts'],
  ['keys', 'keys'],
  ['audit', 'audit'],
];

function start(): void {
  const main = h('main', { id: 'main' });
  const notice = h('div', { id: 'notice', role: 'status', 'aria-live': 'polite', hidden: true });
  const header = h('header', { class: 'top' });
  document.body.replaceChildren(header, notice, main);
  document.documentElement.lang = currentLanguage();

  let page: Page | null = null;
  let accounts: Promise<Account[]> | null = null;
  let noticeTimer = 0;

  const ctx: AppContext = {
    api: createApi(() => {
      accounts = null;
      navigate(`sign-in?next=${encodeURIComponent(currentPath() + location.search)}`, true);
    }),
    accounts() {
      accounts ??= ctx.api.get<{ accounts: Account[] }>('/accounts').then((r) => r.accounts);
      accounts.catch(() => (accounts = null));
      return accounts;
    },
    forgetAccounts() {
      accounts = null;
    },
    navigate: (path) => navigate(path),
    notify(message, kind = 'ok') {
      notice.textContent = message;
      notice.className = kind;
      notice.hidden = false;
      clearTimeout(noticeTimer);
      noticeTimer = window.setTimeout(() => (notice.hidden = true), 8000);
    },
  };

  /** The brand, the navigation, the language switch and sign-out, in the current language. */
  function drawHeader(path: string): void {
    const { app } = t();
    const language = currentLanguage();
    replace(
      header,
      h('a', { class: 'brand', href: BASE }, 'wechat-drip', h('small', {}, ` ${app.tagline}`)),
      h(
        'nav',
        { 'aria-label': app.navLabel },
        NAV.map(([to, key]) =>
          h(
            'a',
            { href: BASE + to, class: path.split('/')[0] === to ? 'active' : null, 'data-nav': to },
            app.nav[key],
          ),
        ),
      ),
      h(
        'div',
        { class: 'lang-switch', role: 'group', 'aria-label': app.language },
        LANGUAGES.map((l) =>
          h(
            'button',
            {
              type: 'button',
              class: 'link small',
              lang: l,
              'data-lang': l,
              'aria-pressed': String(l === language),
              onclick: () => switchTo(l),
            },
            LANGUAGE_NAMES[l],
          ),
        ),
      ),
      h('button', { type: 'button', class: 'link sign-out', onclick: () => leave() }, app.signOut),
    );
  }

  /** Applied without a reload: the page is drawn again in the new language (a form's typing is lost). */
  function switchTo(language: Language): void {
    if (language === currentLanguage()) return;
    chooseLanguage(language);
    // A notice shown before is in the other language: it goes with the page it was about.
    clearTimeout(noticeTimer);
    notice.hidden = true;
    render();
  }

  function leave(): void {
    clearToken();
    accounts = null;
    navigate('sign-in');
  }

  function navigate(path: string, replaceEntry = false): void {
    const url = BASE + path.replace(/^\/+/, '');
    if (replaceEntry) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
    render();
  }

  function render(): void {
    page?.dispose?.();
    page = null;
    const path = currentPath();
    const match = matchRoute(ROUTES, path);
    const signedIn = readToken() !== null;
    if (match && !match.route.public && !signedIn) {
      navigate(`sign-in?next=${encodeURIComponent(path + location.search)}`, true);
      return;
    }
    header.classList.toggle('signed-out', !signedIn);
    drawHeader(path);
    if (!match) {
      const { app } = t();
      replace(main, h('h1', {}, app.notFound), h('p', {}, h('a', { href: BASE }, app.backHome)));
      return;
    }
    page = match.route.page(ctx, match.params, new URLSearchParams(location.search));
    document.title = `${page.title} · wechat-drip`;
    replace(main, page.el);
    window.scrollTo(0, 0);
  }

  interceptLinks((path) => navigate(path));
  window.addEventListener('popstate', render);
  render();
}

start();
