import { seg } from '../api.js';
import { outcomesChart, stepBar } from '../charts.js';
import { describeTrigger, msgtypeName, reasonLabel, statusBadge } from '../describe.js';
import { h, replace } from '../dom.js';
import { clockTime, duration, offsetLabel, total, when, zoneOf } from '../format.js';
import { t, type Catalog } from '../i18n/index.js';
import { BASE, type PageFactory } from '../router.js';
import { shownContent } from '../step-content.js';
import { actionButtons } from '../sequence-actions.js';
import { exitsSummary } from './sequence-exits.js';
import { variantRows } from './variant-rows.js';
import type { PathResult, Sequence, SequenceResults, Step, StepResult } from '../types.js';

const REFRESH_MS = 4000;

const byReason = (counts: Record<string, number>) => {
  const entries = Object.entries(counts);
  return entries.length === 0
    ? '0'
    : h(
        'ul',
        { class: 'reasons' },
        entries.map(([reason, n]) => h('li', {}, h('strong', {}, n), ' ', reasonLabel(reason))),
      );
};

/** A step's sent template messages that WeChat reported undelivered, by report; nothing when none. */
const deliveryFailures = (delivery: StepResult['delivery']) => {
  const failures = Object.entries(delivery).filter(([report]) => report !== 'delivered');
  if (failures.length === 0) return null;
  return h(
    'ul',
    { class: 'reasons', 'data-delivery': 'failed' },
    failures.map(([report, n]) =>
      h('li', {}, h('strong', {}, n), ' ', t().results.undelivered, ' ', reasonLabel(report)),
    ),
  );
};

const lateness = (l: StepResult['latenessMs']) =>
  l ? `${duration(l.p50)} / ${duration(l.p95)} / ${duration(l.max)}` : '—';

type TileKey = keyof Catalog['results']['tiles'];

function tile(key: TileKey, value: number, cls = ''): HTMLElement {
  return h(
    'div',
    { class: `tile ${cls}`, 'data-tile': key },
    h('strong', {}, value),
    h('span', {}, t().results.tiles[key]),
  );
}

/** A step of the current version by its number, and its label: on a journey, the path and its place there. */
function stepOf(sequence: Sequence, paths: readonly PathResult[], n: number): { step?: Step; label: string } {
  const place = paths.find((p) => p.version === sequence.version && p.steps.includes(n));
  if (!place) return { step: sequence.steps[n], label: `${n + 1}` };
  const i = place.steps.indexOf(n);
  const main = place.path === 'main';
  const steps = main ? sequence.steps : (sequence.paths[place.path]?.steps ?? []);
  return { step: steps[i], label: t().results.pathStep(main ? t().results.mainPath : place.path, i) };
}

/** When a step goes out: its offset, or, a last-chance step, how long before the window closes. */
function stepTiming(step: Step | undefined): string {
  if (!step) return t().results.olderVersion;
  if (step.beforeWindowCloseMs !== undefined)
    return t().results.beforeClose(duration(step.beforeWindowCloseMs));
  return offsetLabel(step.offsetMs);
}

/** A last-chance step's moves and the followers it recovered, or nothing. */
function lastChanceNote(r: StepResult): HTMLElement | null {
  if (!r.lastChance) return null;
  const { moved, recovered } = r.lastChance;
  return h(
    'span',
    { class: 'block small', 'data-test': 'last-chance' },
    t().results.lastChance(moved, recovered),
  );
}

function stepRow(sequence: Sequence, paths: readonly PathResult[], r: StepResult): HTMLElement {
  const { step, label } = stepOf(sequence, paths, r.stepIndex);
  const skipped = total(r.skipped);
  const failed = total(r.failed);
  return h(
    'tr',
    { 'data-step': r.stepIndex + 1 },
    h('td', {}, label),
    h('td', {}, stepTiming(step), lastChanceNote(r)),
    h('td', {}, step ? msgtypeName(String(shownContent(step).message.msgtype)) : ''),
    h('td', { class: 'num' }, r.scheduled),
    h('td', { class: 'num' }, r.pending),
    h('td', { class: 'num' }, r.sent, deliveryFailures(r.delivery)),
    h('td', {}, byReason(r.skipped)),
    h('td', {}, byReason(r.failed)),
    h('td', { class: 'num' }, r.cancelled),
    h('td', { class: 'num' }, r.unknown),
    h('td', { class: 'small' }, lateness(r.latenessMs)),
    h(
      'td',
      {},
      stepBar([
        { key: 'sent', n: r.sent },
        { key: 'skipped', n: skipped },
        { key: 'failed', n: failed },
        { key: 'cancelled', n: r.cancelled },
        { key: 'pending', n: r.pending + r.unknown },
      ]),
    ),
  );
}

/** A journey's funnel per version and path: entered, and what became of the wait that ends each path. */
function pathTable(paths: readonly PathResult[]): HTMLElement[] {
  const words = t().results;
  return [
    h('h2', {}, words.perPath),
    h(
      'table',
      { class: 'data' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          words.pathColumns.map((c) => h('th', {}, c)),
        ),
      ),
      h(
        'tbody',
        {},
        paths.map((p) =>
          h(
            'tr',
            { 'data-path': `${p.version}:${p.path}` },
            h('td', { class: 'num' }, p.version),
            h('td', {}, p.path === 'main' ? words.mainPath : p.path),
            h('td', { class: 'num' }, p.entered),
            h('td', { class: 'num' }, p.steps.length),
            h('td', { class: 'num' }, p.converted),
            ...(p.wait
              ? [p.wait.waiting, p.wait.yes, p.wait.no, p.wait.ended].map((n) => h('td', { class: 'num' }, n))
              : [h('td', { colspan: 4, class: 'muted' }, '—')]),
          ),
        ),
      ),
    ),
  ];
}

/** One sequence: status and actions, totals, a chart over time and the outcomes of each step. */
export const sequenceResultsPage: PageFactory = (ctx, params) => {
  const id = params.id;
  const { results: words, common } = t();
  const head = h('div', { class: 'page-head' }, h('h1', {}, words.heading));
  const meta = h('p', { class: 'muted', 'data-test': 'sequence-meta' });
  const tiles = h('div', { class: 'tiles' });
  const exits = h('div', { id: 'exits' });
  const chart = h('div', {});
  const tbody = h('tbody');
  const updated = h('p', { class: 'muted small' });
  const pathsEl = h('div', { id: 'path-results' });
  let timer = 0;
  let stopped = false;

  const render = (sequence: Sequence, results: SequenceResults, zone: string) => {
    replace(
      head,
      h('h1', {}, sequence.name, ' ', statusBadge(sequence.status)),
      h(
        'div',
        { class: 'actions' },
        sequence.status !== 'archived'
          ? h('a', { class: 'button secondary small', href: `${BASE}sequences/${seg(id)}/edit` }, common.edit)
          : null,
        h(
          'a',
          { class: 'button secondary small', href: `${BASE}test-send?sequence=${seg(id)}` },
          words.testSend,
        ),
        actionButtons(ctx, sequence, () => void refresh()),
      ),
    );
    replace(
      meta,
      words.meta(
        describeTrigger(sequence.trigger),
        sequence.appId,
        sequence.version,
        // A journey's steps are its main path's and each path's.
        Object.values(sequence.paths).reduce((n, path) => n + path.steps.length, sequence.steps.length),
        when(sequence.updatedAt, zone),
      ),
    );
    replace(exits, exitsSummary(sequence, results));
    const sum = (f: (r: StepResult) => number) => results.steps.reduce((a, r) => a + f(r), 0);
    replace(
      tiles,
      tile('enrolled', results.enrolled),
      tile('exited', total(results.exited), 'exited'),
      tile(
        'scheduled',
        sum((r) => r.scheduled),
      ),
      tile(
        'pending',
        sum((r) => r.pending),
        'pending',
      ),
      tile(
        'sent',
        sum((r) => r.sent),
        'sent',
      ),
      tile(
        'skipped',
        sum((r) => total(r.skipped)),
        'skipped',
      ),
      tile(
        'failed',
        sum((r) => total(r.failed)),
        'failed',
      ),
      tile(
        'cancelled',
        sum((r) => r.cancelled),
        'cancelled',
      ),
    );
    replace(chart, outcomesChart(results.series, zone));
    // Every step of the current version, plus indexes only older versions had.
    const rows = new Map<number, StepResult>(
      sequence.steps.map((_, i) => [
        i,
        {
          stepIndex: i,
          scheduled: 0,
          pending: 0,
          sent: 0,
          cancelled: 0,
          unknown: 0,
          skipped: {},
          failed: {},
          delivery: {},
          latenessMs: null,
        },
      ]),
    );
    for (const r of results.steps) rows.set(r.stepIndex, r);
    replace(
      tbody,
      [...rows.values()]
        .sort((a, b) => a.stepIndex - b.stepIndex)
        .flatMap((r) => [stepRow(sequence, results.paths, r), ...variantRows(r)]),
    );
    replace(
      pathsEl,
      results.conversions
        ? h(
            'p',
            { 'data-test': 'conversions' },
            words.converted(results.conversions.converted, results.conversions.rate),
          )
        : null,
      results.paths.length ? pathTable(results.paths) : null,
    );
  };

  async function refresh(): Promise<void> {
    window.clearTimeout(timer);
    try {
      const [sequence, results, accounts] = await Promise.all([
        ctx.api.get<Sequence>(`/sequences/${seg(id)}`),
        ctx.api.get<SequenceResults>(`/sequences/${seg(id)}/results`),
        ctx.accounts().catch(() => []),
      ]);
      if (stopped) return;
      const zone = zoneOf(accounts, sequence.appId);
      render(sequence, results, zone);
      updated.textContent = common.live(clockTime(new Date(), zone));
    } catch (err) {
      updated.textContent = common.refreshFailed((err as Error).message);
    }
    if (!stopped) timer = window.setTimeout(() => void refresh(), REFRESH_MS);
  }
  void refresh();

  const el = h(
    'section',
    {},
    h('p', {}, h('a', { href: BASE }, words.back)),
    head,
    meta,
    tiles,
    exits,
    h('h2', {}, words.overTime),
    chart,
    h('h2', {}, words.perStep),
    h(
      'table',
      { class: 'data', id: 'step-results' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          words.columns
            .map((c) => h('th', {}, c))
            .concat(h('th', { title: words.latenessTitle }, words.lateness), h('th', {}, '')),
        ),
      ),
      tbody,
    ),
    pathsEl,
    updated,
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
