import { ApiError, seg } from '../api.js';
import { codeOf, messageBadge, reasonLabel } from '../describe.js';
import { h, replace } from '../dom.js';
import { when } from '../format.js';
import { hasKey, t } from '../i18n/index.js';
import { summarize } from '../message-summary.js';
import { BASE, type AppContext } from '../router.js';
import type { Message, TimelineMessage } from '../types.js';

/** Statuses from which a message may still be sent, and so cancelled. */
export const OPEN_STATUSES = new Set(['pending', 'queued']);

/** An interaction's detail (scene, menu key, message type) as it came, in code type. */
export function detailText(detail: unknown): string | HTMLElement {
  if (detail === null || detail === undefined || detail === '') return '—';
  return codeOf(typeof detail === 'string' ? detail : JSON.stringify(detail));
}

export function table(headings: readonly string[], rows: (string | Node)[][]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, t().common.none);
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

/** A follower's messages, times in `timeZone`, each open one with a Cancel button. */
export function messageTable(
  ctx: AppContext,
  messages: TimelineMessage[],
  timeZone: string,
  reload: () => void,
): HTMLElement {
  const { follower: words, channels, messageStatus } = t();
  const cancel = async (m: TimelineMessage) => {
    try {
      await ctx.api.del(`/messages/${seg(m.id)}?reason=${encodeURIComponent('cancelled in the admin page')}`);
      ctx.notify(words.messageCancelled);
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
        ? words.noAttempts
        : h(
            'ol',
            { class: 'attempts small' },
            (full.deliveryAttempts ?? []).map((a) =>
              h(
                'li',
                {},
                words.attempt(
                  when(a.at, timeZone),
                  hasKey(messageStatus, a.outcome) ? messageStatus[a.outcome] : a.outcome,
                  a.durationMs,
                ),
                a.errcode !== null ? words.errcode(a.errcode, a.errmsg ?? '') : '',
              ),
            ),
          ),
    );
  };
  return table(
    words.messageColumns,
    messages.map((m) => {
      const detail = h('div', {});
      return [
        when(m.dueAt, timeZone),
        h('span', {}, messageBadge(m.status), m.statusReason ? [' ', reasonLabel(m.statusReason)] : null),
        hasKey(channels, m.channel) ? channels[m.channel] : codeOf(m.channel),
        m.sequenceId
          ? h('a', { href: `${BASE}sequences/${seg(m.sequenceId)}` }, words.fromStep((m.stepIndex ?? 0) + 1))
          : words.fromApi,
        summarize(m.message),
        h(
          'span',
          {},
          String(m.attempts),
          ' ',
          h(
            'button',
            { type: 'button', class: 'link', onclick: () => void attempts(m, detail) },
            t().common.details,
          ),
          detail,
        ),
        when(m.sentAt, timeZone),
        OPEN_STATUSES.has(m.status)
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                'data-test': 'cancel-message',
                onclick: () => void cancel(m),
              },
              words.cancel,
            )
          : '',
      ];
    }),
  );
}
