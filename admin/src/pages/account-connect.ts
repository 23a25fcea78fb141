import { h, replace } from '../dom.js';
import { DEFAULT_TIME_ZONE, duration, when } from '../format.js';
import { hasKey, t } from '../i18n/index.js';
import type { AppContext } from '../router.js';
import type { Account, AccountConnected, AuthorizationStarted, PlatformView } from '../types.js';
import { failure } from './account-actions.js';

/**
 * "Connect an official account", when the service runs as a third-party platform (otherwise a line saying
 * what that needs): a pre-auth code for a callback on this page's origin, then the authorization link.
 * WeChat accepts the link only when opened by a click on a page of the platform's registered domain,
 * with that page as the referrer, so the page shows the link rather than going there itself.
 */
export function connectAction(ctx: AppContext): { button: HTMLElement; panel: HTMLElement } {
  const T = t().accounts;
  const button = h('span', { id: 'connect-action' });
  const panel = h('div', { id: 'connect', hidden: true });

  const start = async (callbackPath: string, trigger: HTMLButtonElement) => {
    trigger.disabled = true;
    trigger.textContent = T.connecting;
    try {
      const started = await ctx.api.post<AuthorizationStarted>('/platform/authorizations', {
        redirectUri: location.origin + callbackPath,
      });
      const until = new Date(Date.now() + started.expiresInS * 1000).toISOString();
      replace(
        panel,
        // No account yet: the link's expiry is shown in the default zone.
        h('p', {}, T.connectReady(when(until, DEFAULT_TIME_ZONE), duration(started.expiresInS * 1000))),
        h(
          'a',
          {
            class: 'button primary',
            href: started.authorizationUrl,
            // The page's own policy sends no referrer; WeChat needs the origin to match the registered domain.
            referrerpolicy: 'origin',
            'data-action': 'authorize',
          },
          T.authorize,
        ),
      );
    } catch (err) {
      replace(panel, h('p', { class: 'error' }, T.connectFailed(failure(err))));
    }
    panel.className = 'card';
    panel.hidden = false;
    trigger.disabled = false;
    trigger.textContent = T.connect;
  };

  ctx.api.get<PlatformView>('/platform').then(
    (platform) => {
      const { callbackPath } = platform;
      if (callbackPath === null) {
        replace(panel, h('p', { class: 'muted small', 'data-connect': 'unavailable' }, T.connectUnavailable));
        panel.hidden = false;
        return;
      }
      const trigger = h(
        'button',
        { type: 'button', class: 'secondary', 'data-action': 'connect' },
        T.connect,
      );
      trigger.addEventListener('click', () => void start(callbackPath, trigger));
      replace(button, trigger);
    },
    (err: unknown) => ctx.notify(T.connectFailed(failure(err)), 'error'),
  );
  return { button, panel };
}

/**
 * What the callback's redirect reports (`?connected=created|updated` on the account's address, or
 * `?connect_error=<code>` on the Accounts page), in words; null when it reports nothing.
 */
export function connectNotice(
  query: URLSearchParams,
  appId: string | undefined,
  accounts: readonly Account[],
): HTMLElement | null {
  const T = t().accounts;
  const error = query.get('connect_error');
  if (error !== null) {
    return h(
      'div',
      { class: 'card connect-notice error', role: 'status', 'data-connect': 'error' },
      hasKey(T.connectErrors, error) ? T.connectErrors[error] : T.connectError(error),
    );
  }
  const outcome = query.get('connected');
  if (appId === undefined || (outcome !== 'created' && outcome !== 'updated')) return null;
  const account = accounts.find((a) => a.appId === appId);
  if (!account) return h('div', { class: 'card connect-notice error', role: 'status' }, T.notFound(appId));
  return connectedNotice(account, outcome);
}

function connectedNotice(account: Account, outcome: AccountConnected['outcome']): HTMLElement {
  const T = t().accounts;
  const missing = account.missingPermissions.map((channel) => T.channels[channel]);
  return h(
    'div',
    { class: 'card connect-notice ok', role: 'status', 'data-connect': outcome },
    h('strong', {}, T.connected(account.appId, outcome)),
    ' ',
    T.granted(account.permissions ?? []),
    ' ',
    missing.length === 0 ? T.allChannels : h('span', { class: 'error' }, T.missingChannels(missing)),
  );
}
