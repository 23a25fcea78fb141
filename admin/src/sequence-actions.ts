import { seg } from './api.js';
import { confirmDialog } from './dialog.js';
import { h } from './dom.js';
import { plural } from './format.js';
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

const LABEL: Record<Action, string> = {
  activate: 'Activate',
  pause: 'Pause',
  resume: 'Resume',
  archive: 'Archive',
};

/** Explains, before it happens, what the change does, with the count the API reports right now. */
function consequences(action: Action, pending: number): string[] {
  const cancels = `This cancels ${plural(pending, 'pending message')} already scheduled for followers.`;
  switch (action) {
    case 'pause':
      return [
        cancels,
        'New follows will not start it until you resume; resuming does not bring the cancelled messages back.',
      ];
    case 'archive':
      return [cancels, 'An archived sequence cannot be edited or started again.'];
    case 'activate':
      return ['From now on its trigger enrolls followers and their steps are scheduled.'];
    case 'resume':
      return ['Its trigger enrolls followers again from now on. Cancelled messages stay cancelled.'];
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
  try {
    const current = await ctx.api.get<Sequence>(`/sequences/${seg(sequence.id)}`);
    const pending = current.pendingSteps ?? 0;
    const ok = await confirmDialog({
      title: `${LABEL[action]} “${current.name}”?`,
      body: consequences(action, pending),
      confirm:
        action === 'pause' || action === 'archive' ? `${LABEL[action]} and cancel ${pending}` : LABEL[action],
      danger: action === 'pause' || action === 'archive',
    });
    if (!ok) return null;
    const updated = await ctx.api.post<Sequence>(`/sequences/${seg(sequence.id)}/${action}`);
    const cancelled = updated.cancelledSteps ?? 0;
    ctx.notify(
      `“${updated.name}” is ${updated.status}` +
        (action === 'pause' || action === 'archive'
          ? `; ${plural(cancelled, 'pending message')} cancelled.`
          : '.'),
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
      LABEL[action],
    ),
  );
}
