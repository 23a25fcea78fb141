import { allSequences } from '../all-sequences.js';
import { seg } from '../api.js';
import { auditDetails, auditTarget, type AuditKnown } from '../audit-entry.js';
import { append, field, h, replace } from '../dom.js';
import { when, zoneOf } from '../format.js';
import { t } from '../i18n/index.js';
import type { PageFactory } from '../router.js';
import type { Account, AuditEntry, AuditList } from '../types.js';

/** Entries the page asks for at a time (the API's default page). */
const PAGE_SIZE = 50;

/** An account as the filter names it: its name and app id, or the app id alone. */
const optionLabel = (a: Account): string => (a.name?.trim() ? `${a.name.trim()} · ${a.appId}` : a.appId);

/**
 * The audit log: who changed which sequence or account through the API, from where, newest first; all
 * accounts' or one's (`audit?appId=…`), a page at a time with "more".
 */
export const auditLogPage: PageFactory = (ctx, _params, query) => {
  const T = t().audit;
  const appId = query.get('appId') ?? '';
  const filter = h('select', {
    name: 'appId',
    onchange: () => ctx.navigate(filter.value ? `audit?appId=${seg(filter.value)}` : 'audit'),
  });
  const tbody = h(
    'tbody',
    {},
    h('tr', {}, h('td', { colspan: T.columns.length, class: 'empty' }, t().common.loading)),
  );
  const problem = h('div', {});
  const more = h(
    'button',
    { type: 'button', class: 'secondary', 'data-action': 'more', hidden: true, onclick: () => void load() },
    T.more,
  );
  let known: AuditKnown = { accounts: [], sequences: new Map() };
  /** The `next` of the last page read: where "more" goes on; null before the first page and after the last. */
  let next: string | null = null;
  let stopped = false;

  const row = (e: AuditEntry) =>
    h(
      'tr',
      { 'data-entry': e.id, 'data-audit-action': e.action, 'data-app': e.appId },
      h('td', { class: 'when' }, when(e.at, zoneOf(known.accounts, e.appId ?? undefined))),
      h('td', { class: 'who' }, T.actors[e.actor.kind]),
      h('td', {}, h('code', {}, e.source)),
      h('td', { class: 'what' }, T.actions[e.action]),
      h('td', { class: 'target' }, auditTarget(e, known)),
      h('td', { class: 'details small' }, auditDetails(e, known)),
    );

  async function load(): Promise<void> {
    more.disabled = true;
    try {
      const account = appId ? `&appId=${seg(appId)}` : '';
      const before = next === null ? '' : `&before=${seg(next)}`;
      const page = await ctx.api.get<AuditList>(`/audit?limit=${PAGE_SIZE}${account}${before}`);
      if (stopped) return;
      if (next === null) replace(tbody);
      append(tbody, page.entries.map(row));
      if (tbody.childElementCount === 0) {
        replace(tbody, h('tr', {}, h('td', { colspan: T.columns.length, class: 'empty' }, T.empty)));
      }
      next = page.next;
      more.hidden = next === null;
      replace(problem);
    } catch (err) {
      replace(
        problem,
        h('p', { class: 'error' }, T.loadFailed(err instanceof Error ? err.message : String(err))),
      );
    } finally {
      more.disabled = false;
    }
  }

  /** The accounts name the filter and the rows; the sequences that exist get a link. Either may fail alone. */
  async function start(): Promise<void> {
    // Read afresh, as the accounts page does: the log is where a renamed account is looked at next.
    ctx.forgetAccounts();
    const [accounts, sequences] = await Promise.all([
      ctx.accounts().catch((): Account[] => []),
      allSequences(ctx.api).catch(() => []),
    ]);
    known = { accounts, sequences: new Map(sequences.map((s) => [s.id, s])) };
    const listed = accounts.some((a) => a.appId === appId);
    replace(
      filter,
      h('option', { value: '' }, T.allAccounts),
      accounts.map((a) => h('option', { value: a.appId, selected: a.appId === appId }, optionLabel(a))),
      // A deleted account's entries stay in the log: its app id is still a choice while it is chosen.
      appId && !listed ? h('option', { value: appId, selected: true }, appId) : null,
    );
    await load();
  }
  void start();

  const el = h(
    'section',
    { class: 'audit' },
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, T.title),
      h('div', { class: 'audit-filter' }, field(T.account, filter)),
    ),
    problem,
    h(
      'table',
      { class: 'data', id: 'audit' },
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
    h('p', {}, more),
  );
  return {
    title: T.title,
    el,
    dispose() {
      stopped = true;
    },
  };
};
