import { accountLabel } from '../account-label.js';
import { allSequences } from '../all-sequences.js';
import { seg } from '../api.js';
import { describeTrigger, statusBadge } from '../describe.js';
import { h, replace } from '../dom.js';
import { clockTime, DEFAULT_TIME_ZONE, total, when, zoneOf } from '../format.js';
import { t } from '../i18n/index.js';
import { BASE, type PageFactory } from '../router.js';
import { actionButtons } from '../sequence-actions.js';
import { copyDeleteButtons } from '../sequence-copy-delete.js';
import type { Account, Sequence, SequenceResults } from '../types.js';

/** Counts refresh this often while the page is visible. */
const REFRESH_MS = 3000;

interface Counts {
  enrolled: number;
  pending: number;
  sent: number;
  skipped: number;
  failed: number;
}

function sumCounts(r: SequenceResults): Counts {
  const c: Counts = { enrolled: r.enrolled, pending: 0, sent: 0, skipped: 0, failed: 0 };
  for (const s of r.steps) {
    c.pending += s.pending;
    c.sent += s.sent;
    c.skipped += total(s.skipped);
    c.failed += total(s.failed);
  }
  return c;
}

/**
 * Sequences with their status and live counts (pending steps, sent), and the status actions. Archived ones
 * are history: listed on asking (`sequences?archived=1`), their number on the link that asks.
 */
export const sequenceListPage: PageFactory = (ctx, _params, query) => {
  const words = t().sequences;
  const withArchived = query.get('archived') === '1';
  const archivedLink = h('a', {
    'data-action': 'toggle-archived',
    href: withArchived ? `${BASE}sequences` : `${BASE}sequences?archived=1`,
    hidden: true,
  });
  const tbody = h('tbody');
  const updated = h('span', { class: 'muted small' });
  const policies = h('div', { class: 'accounts muted small' });
  let timer = 0;
  let stopped = false;
  /** Each row's time is in its account's zone; until the accounts are read, in the default one. */
  let accounts: readonly Account[] = [];

  const row = (s: Sequence, c: Counts | null) =>
    h(
      'tr',
      { 'data-sequence': s.id },
      h('td', { class: 'name-cell' }, h('a', { href: `${BASE}sequences/${seg(s.id)}` }, s.name)),
      h('td', { class: 'account-cell', 'data-account': s.appId }, accountLabel(accounts, s.appId)),
      h('td', { class: 'status-cell' }, statusBadge(s.status)),
      h('td', {}, describeTrigger(s.trigger)),
      h('td', { class: 'num' }, s.steps.length),
      h('td', { class: 'num', 'data-count': 'enrolled' }, c ? c.enrolled : '—'),
      h('td', { class: 'num', 'data-count': 'pending' }, c ? c.pending : '—'),
      h('td', { class: 'num', 'data-count': 'sent' }, c ? c.sent : '—'),
      h('td', { class: 'num' }, c ? `${c.skipped} / ${c.failed}` : '—'),
      h('td', { class: 'small' }, words.version(s.version, when(s.updatedAt, zoneOf(accounts, s.appId)))),
      h(
        'td',
        { class: 'row-actions' },
        s.status !== 'archived'
          ? h(
              'a',
              { class: 'button secondary small', href: `${BASE}sequences/${seg(s.id)}/edit` },
              t().common.edit,
            )
          : null,
        actionButtons(ctx, s, () => void refresh()),
        copyDeleteButtons(ctx, s, c?.enrolled ?? null, () => void refresh()),
      ),
    );

  async function refresh(): Promise<void> {
    window.clearTimeout(timer);
    try {
      const all = await allSequences(ctx.api);
      const archived = all.filter((s) => s.status === 'archived').length;
      const sequences = withArchived ? all : all.filter((s) => s.status !== 'archived');
      // One results call per sequence keeps the list API unchanged; drafts have nothing to count.
      const counts = await Promise.all(
        sequences.map((s) =>
          s.status === 'draft'
            ? Promise.resolve(null)
            : ctx.api
                .get<SequenceResults>(`/sequences/${seg(s.id)}/results`)
                .then(sumCounts)
                .catch(() => null),
        ),
      );
      if (stopped) return;
      archivedLink.textContent = withArchived ? words.hideArchived : words.showArchived(archived);
      archivedLink.hidden = !withArchived && archived === 0;
      const empty = all.length === 0 ? words.empty : words.allArchived;
      replace(
        tbody,
        sequences.length === 0
          ? h('tr', {}, h('td', { colspan: words.columns.length + 1, class: 'empty' }, empty))
          : sequences.map((s, i) => row(s, counts[i])),
      );
      updated.textContent = t().common.live(clockTime(new Date(), DEFAULT_TIME_ZONE));
    } catch (err) {
      updated.textContent = t().common.refreshFailed(err instanceof Error ? err.message : String(err));
    }
    if (!stopped) timer = window.setTimeout(() => void refresh(), REFRESH_MS);
  }

  const policyNames = t().policyNames;
  const accountsRead = ctx
    .accounts()
    .then((list) => {
      accounts = list;
      replace(
        policies,
        list.map((a) =>
          h(
            'span',
            { class: 'account' },
            words.account(a.appId, policyNames[a.policyName]),
            a.webhook ? null : words.noWebhook,
          ),
        ),
      );
    })
    .catch(() => undefined);
  void accountsRead.then(() => refresh());

  const el = h(
    'section',
    {},
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, words.title),
      h(
        'a',
        { class: 'button primary', href: `${BASE}sequences/new`, 'data-action': 'new-sequence' },
        words.create,
      ),
    ),
    policies,
    h(
      'table',
      { class: 'data', id: 'sequences' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          words.columns.map((c) => h('th', {}, c)),
          h('th', {}, ''),
        ),
      ),
      tbody,
    ),
    h('p', { class: 'list-foot' }, updated, ' ', archivedLink),
  );
  return {
    title: words.title,
    el,
    dispose() {
      stopped = true;
      window.clearTimeout(timer);
    },
  };
};
