import { ApiError, seg } from '../api.js';
import { reasonLabel } from '../describe.js';
import { h, replace } from '../dom.js';
import { when } from '../format.js';
import { summarize } from '../message-summary.js';
import { BASE, type AppContext } from '../router.js';
import type { Message, TimelineMessage } from '../types.js';

/** Statuses from which a message may still be sent, and so cancelled. */
export const OPEN_STATUSES = new Set(['pending', 'queued']);

/** An interaction's detail (scene, menu key, message type) as text. */
export function detailText(detail: unknown): string {
  if (typeof detail === 'string') return detail || '—';
  return detail === null || detail === undefined ? '—' : JSON.stringify(detail);
}

export function table(headings: string[], rows: (string | Node)[][]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, 'None.');
  return h(
    'table',
    { class: 'data' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headings.map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          {},
          r.map((c) => h('td', {}, c)),
        ),
      ),
    ),
  );
}

export function messageTable(ctx: AppContext, messages: TimelineMessage[], reload: () => void): HTMLElement {
  const cancel = async (m: TimelineMessage) => {
    try {
      await ctx.api.del(`/messages/${seg(m.id)}?reason=${encodeURIComponent('cancelled in the admin page')}`);
      ctx.notify('Message cancelled.');
    } catch (err) {
      ctx.notify(err instanceof ApiError ? err.message : String(err), 'error');
    }
    reload();
  };
  const attempts = async (m: TimelineMessage, cell: HTMLElement) => {
    const full = await ctx.api.get<Message>(`/messages/${seg(m.id)}`);
    replace(
      cell,
      (full.deliveryAttempts ?? []).length === 0
        ? 'No attempts yet.'
        : h(
            'ol',
            { class: 'attempts small' },
            (full.deliveryAttempts ?? []).map((a) =>
              h(
                'li',
                {},
                `${when(a.at)} · ${a.outcome}`,
                a.errcode !== null ? ` · errcode ${a.errcode} ${a.errmsg ?? ''}` : '',
                ` · ${a.durationMs} ms`,
              ),
            ),
          ),
    );
  };
  return table(
    ['Due', 'Status', 'Channel', 'From', 'Message', 'Attempts', 'Sent', ''],
    messages.map((m) => {
      const detail = h('div', {});
      return [
        when(m.dueAt),
        h(
          'span',
          {},
          h('span', { class: `badge msg-${m.status}` }, m.status),
          m.statusReason ? ` ${reasonLabel(m.statusReason)}` : '',
        ),
        m.channel,
        m.sequenceId
          ? h('a', { href: `${BASE}sequences/${seg(m.sequenceId)}` }, `step ${(m.stepIndex ?? 0) + 1}`)
          : 'API',
        summarize(m.message),
        h(
          'span',
          {},
          String(m.attempts),
          ' ',
          h('button', { type: 'button', class: 'link', onclick: () => void attempts(m, detail) }, 'details'),
          detail,
        ),
        when(m.sentAt),
        OPEN_STATUSES.has(m.status)
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                'data-test': 'cancel-message',
                onclick: () => void cancel(m),
              },
              'Cancel',
            )
          : '',
      ];
    }),
  );
}
