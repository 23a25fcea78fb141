import { type Pool, withTransaction } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { appendCancellation, holdClaims } from '../store/ledger';
import { endWaitsOfSequence } from '../store/journey-waits';
import type { SequenceDefinition } from './sequence-schema';
import {
  addVersion,
  countOpenSteps,
  findSequence,
  insertSequence,
  type Sequence,
  setStatus,
} from '../store/sequence-store';
import type { SequenceAction, SequenceStatus } from '../contract';

/** Creates a sequence (version 1), as a draft or active at once. */
export async function createSequence(
  pool: Pool,
  d: SequenceDefinition,
  status: 'draft' | 'active',
): Promise<Sequence> {
  return withTransaction(pool, async (client) => {
    const id = await insertSequence(client, d, status);
    return (await findSequence(client, id))!;
  });
}

/**
 * Saves an edit as a new version: followers enrolled from now on get it, running enrollments keep the
 * version they started with. The account cannot change; an archived sequence cannot be edited.
 */
export async function updateSequence(pool: Pool, id: string, d: SequenceDefinition): Promise<Sequence> {
  return withTransaction(pool, async (client) => {
    const current = await findSequence(client, id, true);
    if (!current) throw new NotFoundError(`sequence ${id}`);
    if (current.appId !== d.appId) {
      throw new ConflictError(
        'sequence_account_fixed',
        `sequence ${id} belongs to ${current.appId}; appId cannot change`,
      );
    }
    if (current.status === 'archived')
      throw new ConflictError('sequence_archived', `sequence ${id} is archived`);
    await addVersion(client, id, d);
    return (await findSequence(client, id))!;
  });
}

const TRANSITIONS: Record<SequenceAction, { from: SequenceStatus[]; to: SequenceStatus }> = {
  activate: { from: ['draft'], to: 'active' },
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  archive: { from: ['draft', 'active', 'paused'], to: 'archived' },
};

/**
 * Changes a sequence's status. Pausing or archiving stops new enrollments, cancels every pending step
 * with one ledger row (not one update per message) and ends its journeys' open waits; resuming does not
 * bring cancelled steps or ended waits back.
 * Returns the sequence and how many pending steps the change cancelled.
 */
export async function changeSequenceStatus(
  pool: Pool,
  id: string,
  action: SequenceAction,
  actor: string,
): Promise<{ sequence: Sequence; cancelledSteps: number }> {
  return withTransaction(pool, async (client) => {
    const current = await findSequence(client, id, true);
    if (!current) throw new NotFoundError(`sequence ${id}`);
    const { from, to } = TRANSITIONS[action];
    if (!from.includes(current.status)) {
      throw new ConflictError('sequence_status', `cannot ${action} a sequence that is ${current.status}`, {
        status: current.status,
      });
    }
    let cancelledSteps = 0;
    if (to === 'paused' || to === 'archived') {
      await holdClaims(client, current.appId);
      cancelledSteps = await countOpenSteps(client, id);
      // Its journeys' waits end too: no path starts after the pause (resuming starts none either).
      await endWaitsOfSequence(client, id);
      await appendCancellation(client, {
        appId: current.appId,
        scope: 'sequence',
        target: id,
        reason: `sequence ${to}`,
        actor,
      });
    }
    await setStatus(client, id, to);
    return { sequence: (await findSequence(client, id))!, cancelledSteps };
  });
}

/** Pending steps a pause or archive would cancel (for marketing's confirmation). */
export async function pendingSteps(pool: Pool, id: string): Promise<number> {
  return withTransaction(pool, (client) => countOpenSteps(client, id));
}
