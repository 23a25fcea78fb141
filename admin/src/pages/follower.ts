import { seg } from '../api.js';
import { codeOf } from '../describe.js';
import { confirmDialog } from '../dialog.js';
import { field, h, replace } from '../dom.js';
import { DEFAULT_TIME_ZONE, relative, when } from '../format.js';
import { hasKey, t } from '../i18n/index.js';
import { BASE, type AppContext, type PageFactory } from '../router.js';
import type { Account, FollowerTimeline } from '../types.js';
import { detailText, messageTable, OPEN_STATUSES, table } from './follower-tables.js';

/** Follower lookup by account and openid: window, interactions, enrollments, messages; cancel them. */
export const followerPage: PageFactory = (ctx, _params, query) => {
  const words = t().follower;
  const account = h('select', { name: 'appId' });
  const openid = h('input', { type: 'text', name: 'openid', required: true, spellcheck: false });
  openid.value = query.get('openid') ?? '';
  const out = h('div', { class: 'follower' });
  const form = h(
    'form',
    { class: 'card lookup' },
    field(words.account, account),
    field(words.openid, openid),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', 'data-action': 'look-up' }, words.lookUp),
    ),
  );
  let accounts: Account[] = [];

  const load = async () => {
    if (!openid.value.trim()) return;
    history.replaceState(
      null,
      '',
      `${BASE}followers?appId=${seg(account.value)}&openid=${seg(openid.value.trim())}`,
    );
    replace(out, h('p', { class: 'muted' }, t().common.loading));
    try {
      const timeline = await ctx.api.get<FollowerTimeline>(
        `/followers/${seg(account.value)}/${seg(openid.value.trim())}`,
      );
      replace(
        out,
        render(
          ctx,
          timeline,
          accounts.find((a) => a.appId === timeline.appId),
          () => void load(),
        ),
      );
    } catch (err) {
      replace(out, h('p', { class: 'error' }, (err as Error).message));
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load();
  });
  void ctx.accounts().then((list) => {
    accounts = list;
    replace(
      account,
      list.map((a) => h('option', { value: a.appId, selected: a.appId === query.get('appId') }, a.appId)),
    );
    void load();
  });

  return { title: words.title, el: h('section', {}, h('h1', {}, words.title), form, out) };
};

function render(
  ctx: AppContext,
  timeline: FollowerTimeline,
  account: Account | undefined,
  reload: () => void,
): HTMLElement {
  const { follower: words, triggers, interactions } = t();
  const zone = account?.timeZone ?? DEFAULT_TIME_ZONE;
  const at = (iso: string | null | undefined) => when(iso, zone);
  const open = timeline.messages.filter((m) => OPEN_STATUSES.has(m.status));
  const f = timeline.follower;
  const rule = f?.windowKind && account?.windowPolicy ? account.windowPolicy[f.windowKind] : null;
  const cancelAll = async () => {
    const ok = await confirmDialog({
      title: words.cancelTitle(timeline.openid),
      body: [words.cancelBody(open.length)],
      confirm: words.cancelConfirm(open.length),
      danger: true,
    });
    if (!ok) return;
    try {
      const r = await ctx.api.post<{ matched: number }>('/cancellations', {
        appId: timeline.appId,
        openid: timeline.openid,
        reason: 'cancelled in the admin page',
      });
      ctx.notify(words.cancelled(r.matched));
    } catch (err) {
      ctx.notify((err as Error).message, 'error');
    }
    reload();
  };
  const subscription = !f
    ? words.noInteraction
    : f.subscribed
      ? f.subscribedAt
        ? words.since(at(f.subscribedAt))
        : words.subscribed
      : words.leftAt(at(f.unsubscribedAt));

  return h(
    'div',
    {},
    h(
      'div',
      { class: 'tiles' },
      h(
        'div',
        { class: 'tile', 'data-tile': 'subscription' },
        h('strong', {}, f ? (f.subscribed ? words.following : words.left) : words.unknown),
        h('span', {}, subscription),
      ),
      h(
        'div',
        { class: `tile ${f?.windowOpen ? 'sent' : 'failed'}`, 'data-tile': 'window' },
        h('strong', {}, f?.windowOpen ? words.windowOpen : words.windowClosed),
        h(
          'span',
          {},
          f?.windowKind
            ? words.openedBy(
                triggers.kind[f.windowKind],
                at(f.windowOpenedAt),
                f.windowOpen === true,
                relative(f.windowExpiresAt),
              )
            : words.noWindow,
        ),
      ),
      h(
        'div',
        { class: 'tile', 'data-tile': 'allowance' },
        h('strong', {}, f?.windowOpen ? String(f.windowRemaining ?? 0) : '0'),
        h('span', {}, rule ? words.leftOf(rule.count) : words.messagesLeft),
      ),
    ),
    h(
      'div',
      { class: 'page-head' },
      h('h2', {}, words.messages(timeline.messages.length)),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary small', onclick: reload }, t().common.refresh),
        h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            disabled: open.length === 0,
            'data-test': 'cancel-all',
            onclick: () => void cancelAll(),
          },
          words.cancelAll(open.length),
        ),
      ),
    ),
    messageTable(ctx, timeline.messages, zone, reload),
    h('h2', {}, words.enrollments),
    table(
      words.enrollmentColumns,
      timeline.enrollments.map((e) => [
        h('a', { href: `${BASE}sequences/${seg(e.sequenceId)}` }, e.sequenceName),
        t().common.version(e.version),
        at(e.enrolledAt),
      ]),
    ),
    h('h2', {}, words.interactions),
    table(
      words.interactionColumns,
      timeline.interactions.map((i) => [
        hasKey(interactions, i.kind) ? interactions[i.kind] : codeOf(i.kind),
        detailText(i.detail),
        at(i.at),
      ]),
    ),
  );
}
