import { ApiError, createApi } from '../api.js';
import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { PageFactory } from '../router.js';
import { clearToken, saveToken } from '../session.js';

/** Only app-relative paths are followed after sign-in, so a crafted link cannot send the user elsewhere. */
function safeNext(next: string | null): string {
  return next && /^[A-Za-z0-9_\-/?=&%.]*$/.test(next) && !next.startsWith('/') ? next : '';
}

/**
 * The admin token (ADMIN_TOKEN of the service) is typed once per browser tab and kept in
 * sessionStorage. It is checked against the API before it is kept.
 */
export const signInPage: PageFactory = (ctx, _params, query) => {
  const words = t().signIn;
  clearToken();
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    spellcheck: false,
    required: true,
    placeholder: 'ADMIN_TOKEN',
  });
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit', class: 'primary' }, words.submit);
  const form = h(
    'form',
    { class: 'card sign-in', method: 'post', action: '#' },
    h('h1', {}, words.title),
    h('p', { class: 'muted' }, words.intro),
    field(words.tokenLabel, input, { hint: words.tokenHint }),
    error,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', (event) => {
    // Never let the browser submit the form: a GET would put the token in the URL.
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    button.disabled = true;
    error.hidden = true;
    // Try the token before keeping it; a 401 here must not bounce to sign-in again.
    const probe = createApi(
      () => undefined,
      () => token,
    );
    probe
      .get('/accounts')
      .then(() => {
        saveToken(token);
        ctx.navigate(safeNext(query.get('next')));
      })
      .catch((err: unknown) => {
        error.textContent =
          err instanceof ApiError && err.status === 401
            ? words.refused
            : err instanceof ApiError && err.status === 403
              ? words.keyRefused
              : err instanceof Error
                ? err.message
                : String(err);
        error.hidden = false;
        button.disabled = false;
        input.select();
      });
  });
  queueMicrotask(() => input.focus());
  return { title: words.title, el: h('section', { class: 'narrow' }, form) };
};
