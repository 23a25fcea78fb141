import { seg } from './api.js';
import { confirmDialog } from './dialog.js';
import { h } from './dom.js';
import { t } from './i18n/index.js';
import type { AppContext } from './router.js';
import type { Sequence, SequenceStatus } from './types.js';

export type Action = 'activate' | 'pause' | 'resume' | 'archive';

/** Which status changes the API allows from each status. */
export const ACTIONS_FROM: Record<SequenceStatus, Action[]> = {
  draft: ['activate', 'archive'],
  active: ['pause', 'archive'],
  paused: ['resume', 'archive'],
  archived: [],
};

/** Explains, before it happens, what the change does, with the count the API reports right now. */
function consequences(action: Action, pending: number): string[] {
  const words = t().actions;
  switch (action) {
    case 'pause':
      return [words.cancels(pending), words.pauseNote];
    case 'archive':
      return [words.cancels(pending), words.archiveNote];
    case 'activate':
      return [words.activateNote];
    case 'resume':
      return [words.resumeNote];
  }
}

/**
 * Runs a status change after a confirmation that says how many pending messages it cancels (read
 * from GET /v1/sequences/:id just before asking). Resolves with the updated sequence, or null.
 */
export async function changeStatus(
  ctx: AppContext,
  sequence: Pick<Sequence, 'id' | 'name'>,
  action: Action,
): Promise<Sequence | null> {
  const { actions: words, sequenceStatus } = t();
  const cancels = action === 'pause' || action === 'archive';
  try {
    const current = await ctx.api.get<Sequence>(`/sequences/${seg(sequence.id)}`);
    const pending = current.pendingSteps ?? 0;
    const label = words.label[action];
    const ok = await confirmDialog({
      title: words.title(label, current.name),
      body: consequences(action, pending),
      confirm: cancels ? words.confirmAndCancel(label, pending) : label,
      danger: cancels,
    });
    if (!ok) return null;
    const updated = await ctx.api.post<Sequence>(`/sequences/${seg(sequence.id)}/${action}`);
    const cancelled = updated.cancelledSteps ?? 0;
    const status = sequenceStatus[updated.status];
    ctx.notify(
      cancels ? words.changedCancelled(updated.name, status, cancelled) : words.changed(updated.name, status),
    );
    return updated;
  } catch (err) {
    ctx.notify(err instanceof Error ? err.message : String(err), 'error');
    return null;
  }
}

/** The buttons for the changes allowed from the sequence's status. */
export function actionButtons(
  ctx: AppContext,
  sequence: Sequence,
  onChanged: (s: Sequence) => void,
): HTMLElement[] {
  return ACTIONS_FROM[sequence.status].map((action) =>
    h(
      'button',
      {
        type: 'button',
        class: action === 'activate' || action === 'resume' ? 'primary small' : 'secondary small',
        'data-action': action,
        onclick: (event: Event) => {
          const button = event.currentTarget as HTMLButtonElement;
          button.disabled = true;
          void changeStatus(ctx, sequence, action).then((updated) => {
            button.disabled = false;
            if (updated) onChanged(updated);
          });
        },
      },
      t().actions.label[action],
    ),
  );
}
