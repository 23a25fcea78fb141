import type { Api } from './api.js';
import type { Account } from './types.js';

/** Where the app is served (index.html's `<base href>` says the same). */
export const BASE = '/admin/';

/** What every page gets: the API, the accounts (fetched once, until a change), navigation and a notice line. */
export interface AppContext {
  readonly api: Api;
  accounts(): Promise<Account[]>;
  /** Drops the fetched accounts after a change, so that every page reads them again. */
  forgetAccounts(): void;
  navigate(path: string): void;
  notify(message: string, kind?: 'ok' | 'error'): void;
}

/** A rendered page; `dispose` stops its timers when the user navigates away. */
export interface Page {
  readonly title: string;
  readonly el: HTMLElement;
  dispose?(): void;
}

export type PageFactory = (ctx: AppContext, params: Record<string, string>, query: URLSearchParams) => Page;

export interface Route {
  /** e.g. `sequences/:id/edit`; '' is the home page. */
  readonly pattern: string;
  readonly page: PageFactory;
  /** Pages that work without a token (sign-in). */
  readonly public?: boolean;
}

/** Matches the path after BASE against the routes; params are decoded. */
export function matchRoute(
  routes: readonly Route[],
  path: string,
): { route: Route; params: Record<string, string> } | null {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const want = route.pattern.split('/').filter(Boolean);
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = want.every((w, i) => {
      if (w.startsWith(':')) {
        params[w.slice(1)] = decodeURIComponent(parts[i]);
        return true;
      }
      return w === parts[i];
    });
    if (ok) return { route, params };
  }
  return null;
}

/** The app-relative path of the current location ("sequences/abc"). */
export function currentPath(): string {
  const p = location.pathname;
  return p.startsWith(BASE) ? p.slice(BASE.length) : p.replace(/^\/admin\/?/, '');
}

/**
 * Same-page navigation for links inside the app, so that the page (and the token in sessionStorage)
 * stays; modified clicks (new tab) and other targets keep the browser's behaviour.
 */
export function interceptLinks(navigate: (path: string) => void): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest('a');
    if (!link || link.target || link.hasAttribute('download')) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
    event.preventDefault();
    navigate(url.pathname.slice(BASE.length) + url.search);
  });
}
