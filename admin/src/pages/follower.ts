import { seg } from '../api.js';
import { KIND_LABEL } from '../describe.js';
import { confirmDialog } from '../dialog.js';
import { field, h, replace } from '../dom.js';
import { plural, relative, when } from '../format.js';
import { BASE, type AppContext, type PageFactory } from '../router.js';
import type { Account, FollowerTimeline } from '../types.js';
import { detailText, messageTable, OPEN_STATUSES, table } from './follower-tables.js';

/** Follower lookup by account and openid: window, interactions, enrollments, messages; cancel them. */
export const followerPage: PageFactory = (ctx, _params, query) => {
  const account = h('select', { name: 'appId' });
  const openid = h('input', { type: 'text', name: 'openid', required: true, spellcheck: false });
  openid.value = query.get('openid') ?? '';
  const out = h('div', { class: 'follower' });
  const form = h(
    'form',
    { class: 'card lookup' },
    field('Account', account),
    field('openid', openid),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Look up')),
  );
  let accounts: Account[] = [];

  const load = async () => {
    if (!openid.value.trim()) return;
    history.replaceState(
      null,
      '',
      `${BASE}followers?appId=${seg(account.value)}&openid=${seg(openid.value.trim())}`,
    );
    replace(out, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const t = await ctx.api.get<FollowerTimeline>(
        `/followers/${seg(account.value)}/${seg(openid.value.trim())}`,
      );
      replace(
        out,
        render(
          ctx,
          t,
          accounts.find((a) => a.appId === t.appId),
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

  return { title: 'Follower lookup', el: h('section', {}, h('h1', {}, 'Follower lookup'), form, out) };
};

function render(
  ctx: AppContext,
  t: FollowerTimeline,
  account: Account | undefined,
  reload: () => void,
): HTMLElement {
  const open = t.messages.filter((m) => OPEN_STATUSES.has(m.status));
  const f = t.follower;
  const rule = f?.windowKind && account?.windowPolicy ? account.windowPolicy[f.windowKind] : null;
  const cancelAll = async () => {
    const ok = await confirmDialog({
      title: `Cancel ${t.openid}’s pending messages?`,
      body: [
        `This cancels ${plural(open.length, 'pending message')} for this follower, from every sequence and API call.`,
      ],
      confirm: `Cancel ${open.length}`,
      danger: true,
    });
    if (!ok) return;
    try {
      const r = await ctx.api.post<{ matched: number }>('/cancellations', {
        appId: t.appId,
        openid: t.openid,
        reason: 'cancelled in the admin page',
      });
      ctx.notify(`Cancelled ${plural(r.matched, 'message')}.`);
    } catch (err) {
      ctx.notify((err as Error).message, 'error');
    }
    reload();
  };

  return h(
    'div',
    {},
    h(
      'div',
      { class: 'tiles' },
      h(
        'div',
        { class: 'tile', 'data-tile': 'subscription' },
        h('strong', {}, f ? (f.subscribed ? 'Following' : 'Left') : 'Unknown'),
        h(
          'span',
          {},
          !f
            ? 'no interaction recorded'
            : f.subscribed
              ? f.subscribedAt
                ? `since ${when(f.subscribedAt)}`
                : 'subscribed'
              : `left ${when(f.unsubscribedAt)}`,
        ),
      ),
      h(
        'div',
        { class: `tile ${f?.windowOpen ? 'sent' : 'failed'}`, 'data-tile': 'window' },
        h('strong', {}, f?.windowOpen ? 'Window open' : 'Window closed'),
        h(
          'span',
          {},
          f?.windowKind
            ? `opened by ${KIND_LABEL[f.windowKind]} ${when(f.windowOpenedAt)}; ${f.windowOpen ? 'closes' : 'closed'} ${relative(f.windowExpiresAt)}`
            : 'no window yet',
        ),
      ),
      h(
        'div',
        { class: 'tile', 'data-tile': 'allowance' },
        h('strong', {}, f?.windowOpen ? String(f.windowRemaining ?? 0) : '0'),
        h('span', {}, rule ? `messages left of ${rule.count}` : 'messages left'),
      ),
    ),
    h(
      'div',
      { class: 'page-head' },
      h('h2', {}, `Messages (${t.messages.length})`),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary small', onclick: reload }, 'Refresh'),
        h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            disabled: open.length === 0,
            'data-test': 'cancel-all',
            onclick: () => void cancelAll(),
          },
          `Cancel all pending (${open.length})`,
        ),
      ),
    ),
    messageTable(ctx, t.messages, reload),
    h('h2', {}, 'Enrollments'),
    table(
      ['Sequence', 'Version', 'Enrolled'],
      t.enrollments.map((e) => [
        h('a', { href: `${BASE}sequences/${seg(e.sequenceId)}` }, e.sequenceName),
        `v${e.version}`,
        when(e.enrolledAt),
      ]),
    ),
    h('h2', {}, 'Interactions'),
    table(
      ['Kind', 'Detail', 'At'],
      t.interactions.map((i) => [i.kind, detailText(i.detail), when(i.at)]),
    ),
  );
}
