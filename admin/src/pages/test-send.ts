import { allSequences } from '../all-sequences.js';
import { ApiError, seg } from '../api.js';
import { messageBadge, reasonLabel } from '../describe.js';
import { field, h, replace } from '../dom.js';
import { clearErrors, showErrors } from '../editor/field-errors.js';
import { phonePreview } from '../editor/phone-preview.js';
import { offsetLabel } from '../format.js';
import { t } from '../i18n/index.js';
import { summarize } from '../message-summary.js';
import { BASE, type PageFactory } from '../router.js';
import { shownContent } from '../step-content.js';
import type { Message, MessageView, Sequence } from '../types.js';

/** The operator's openid is not a secret; remembering it saves typing it on every test. */
const OPENID_KEY = 'wechat-drip.test-openid';
const FINAL = new Set(['sent', 'skipped', 'failed', 'cancelled', 'unknown']);

/**
 * Sends one step now to the operator's own openid through the normal path (outbox, broker, window
 * check), then follows the message until it has an outcome.
 */
export const testSendPage: PageFactory = (ctx, _params, query) => {
  const { testSend: words, sequenceStatus } = t();
  const sequenceSelect = h('select', { name: 'sequence' });
  const stepSelect = h('select', { name: 'step' });
  const openid = h('input', { type: 'text', name: 'openid', required: true, spellcheck: false });
  openid.value = localStorage.getItem(OPENID_KEY) ?? '';
  const preview = h('div', {});
  const result = h('div', { class: 'test-result', role: 'status' });
  const send = h('button', { type: 'submit', class: 'primary', 'data-action': 'send' }, words.send);
  let sequences: Sequence[] = [];
  let poll = 0;

  const current = () => sequences.find((s) => s.id === sequenceSelect.value);
  const showSteps = () => {
    const s = current();
    replace(
      stepSelect,
      (s?.steps ?? []).map((st, i) =>
        h(
          'option',
          { value: i },
          words.stepOption(i + 1, offsetLabel(st.offsetMs), summarize(shownContent(st).message, 40)),
        ),
      ),
    );
    showPreview();
  };
  const showPreview = () => {
    const step = current()?.steps[Number(stepSelect.value)];
    replace(
      preview,
      step
        ? phonePreview(
            [
              {
                ...shownContent(step),
                verdict: {
                  index: Number(stepSelect.value),
                  offsetMs: 0,
                  outside: null,
                  hasFallback: false,
                  note: null,
                },
              },
            ],
            current()?.appId ?? '',
          )
        : null,
    );
  };
  sequenceSelect.addEventListener('change', showSteps);
  stepSelect.addEventListener('change', showPreview);

  const follow = async (id: string, until: number) => {
    const m = await ctx.api.get<Message>(`/messages/${seg(id)}`);
    replace(
      result,
      h(
        'p',
        {},
        words.message,
        h('code', {}, m.id),
        ': ',
        messageBadge(m.status),
        m.statusReason ? [' ', reasonLabel(m.statusReason)] : null,
      ),
      h(
        'p',
        {},
        h(
          'a',
          { href: `${BASE}followers?appId=${seg(current()?.appId ?? '')}&openid=${seg(openid.value)}` },
          words.lookUp,
        ),
      ),
    );
    if (!FINAL.has(m.status) && Date.now() < until)
      poll = window.setTimeout(() => void follow(id, until), 1000);
  };

  const form = h(
    'form',
    { class: 'card' },
    field(words.sequence, sequenceSelect),
    field(words.step, stepSelect),
    field(words.openid, openid, { path: 'openid', hint: words.hint }),
    h('div', { class: 'actions' }, send),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const s = current();
    if (!s || !openid.value.trim()) return;
    localStorage.setItem(OPENID_KEY, openid.value.trim());
    send.disabled = true;
    window.clearTimeout(poll);
    clearErrors(form);
    ctx.api
      .post<MessageView>(`/sequences/${seg(s.id)}/test-send`, {
        openid: openid.value.trim(),
        stepIndex: Number(stepSelect.value),
      })
      .then((m) => follow(m.id, Date.now() + 30_000))
      .catch((err: unknown) => {
        // A refusal's problems beside the openid, or under the refusal (a variable the step needs).
        const unplaced = err instanceof ApiError ? showErrors(form, err.details) : [];
        replace(
          result,
          h('p', { class: 'error' }, (err as Error).message),
          unplaced.map((d) => h('p', { class: 'error small' }, d.message)),
        );
      })
      .finally(() => (send.disabled = false));
  });

  void allSequences(ctx.api).then((list) => {
    sequences = list.filter((s) => s.status !== 'archived');
    replace(
      sequenceSelect,
      sequences.map((s) =>
        h(
          'option',
          { value: s.id, selected: s.id === query.get('sequence') },
          words.sequenceOption(s.name, sequenceStatus[s.status]),
        ),
      ),
    );
    showSteps();
  });

  return {
    title: words.title,
    el: h(
      'section',
      {},
      h('h1', {}, words.title),
      h('div', { class: 'editor-grid' }, form, h('aside', {}, preview)),
    ),
    dispose: () => window.clearTimeout(poll),
  };
};
