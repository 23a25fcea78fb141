/**
 * The admin token lives in sessionStorage: typed once per tab, gone when the tab closes, never in a URL
 * (URLs end up in history, logs and Referer headers).
 */
const KEY = 'wechat-drip.admin-token';

export function readToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function clearToken(): void {
  sessionStorage.removeItem(KEY);
}
