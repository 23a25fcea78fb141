import { seg } from './api.js';
import { confirmDialog } from './dialog.js';
import { h } from './dom.js';
import { t } from './i18n/index.js';
import type { AppContext } from './router.js';
import type { Sequence } from './types.js';

/**
 * Asks with the confirmation dialog, then runs `task`. Resolves with its result, or null when the user
 * dismissed the dialog or the API refused (its message is shown).
 */
async function confirmThen<T>(
  ctx: AppContext,
  dialog: Parameters<typeof confirmDialog>[0],
  task: () => Promise<T>,
): Promise<T | null> {
  if (!(await confirmDialog(dialog))) return null;
  return task().catch((err: unknown) => {
    ctx.notify(err instanceof Error ? err.message : String(err), 'error');
    return null;
  });
}

/** Copies the sequence as a draft, named in the dialog (`<name>（副本）` by default); resolves with the copy. */
export function duplicateSequence(ctx: AppContext, sequence: Sequence): Promise<Sequence | null> {
  const words = t().actions;
  const fallbackName = words.copyName(sequence.name);
  const input = h('input', { type: 'text', name: 'copy-name', maxlength: 100, value: fallbackName });
  const field = h('label', { class: 'field' }, h('span', { class: 'label' }, words.copyNameLabel), input);
  const dialog = {
    title: words.duplicateTitle(sequence.name),
    body: [words.duplicateNote, field],
    confirm: words.duplicate,
  };
  return confirmThen(ctx, dialog, async () => {
    const name = input.value.trim() || fallbackName;
    const copy = await ctx.api.post<Sequence>(`/sequences/${seg(sequence.id)}/duplicate`, { name });
    ctx.notify(words.duplicated(copy.name));
    return copy;
  });
}

/** Deletes the sequence after the dialog; resolves true when it is gone. */
export async function deleteSequence(ctx: AppContext, sequence: Sequence): Promise<boolean> {
  const words = t().actions;
  const dialog = {
    title: words.deleteTitle(sequence.name),
    body: [words.deleteNote],
    confirm: words.delete,
    danger: true,
  };
  const gone = await confirmThen(ctx, dialog, async () => {
    await ctx.api.del(`/sequences/${seg(sequence.id)}`);
    ctx.notify(words.deleted(sequence.name));
    return true;
  });
  return gone === true;
}

/**
 * The row's Duplicate and Delete buttons. Delete is offered for a draft or an archived sequence (the API
 * refuses the others: archive first); for an archived one that enrolled followers (`enrolled` > 0) it is
 * disabled and says why — its results are history.
 */
export function copyDeleteButtons(
  ctx: AppContext,
  sequence: Sequence,
  enrolled: number | null,
  onChanged: () => void,
): HTMLElement[] {
  const words = t().actions;
  const run = (task: () => Promise<unknown>) => (event: Event) => {
    const button = event.currentTarget as HTMLButtonElement;
    button.disabled = true;
    void task().then((done) => {
      button.disabled = false;
      if (done) onChanged();
    });
  };
  const deletable = sequence.status === 'draft' || sequence.status === 'archived';
  const hasHistory = (enrolled ?? 0) > 0;
  return [
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'data-action': 'duplicate',
        onclick: run(() => duplicateSequence(ctx, sequence)),
      },
      words.duplicate,
    ),
    deletable
      ? h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'data-action': 'delete',
            disabled: hasHistory,
            title: hasHistory ? words.deleteHasHistory : null,
            onclick: run(() => deleteSequence(ctx, sequence)),
          },
          words.delete,
        )
      : null,
  ].filter((b): b is HTMLButtonElement => b !== null);
}
