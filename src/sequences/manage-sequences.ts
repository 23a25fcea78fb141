import { type Pool, withTransaction } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { API_ACTOR, appendCancellation, holdClaims } from '../store/ledger';
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
import type { AuditChange, SequenceAction, SequenceStatus } from '../contract';
import { type Actor, recordChange } from '../store/audit-log';

/** Creates a sequence (version 1), as a draft or active at once; `by` is who, for the audit log. */
export async function createSequence(
  pool: Pool,
  d: SequenceDefinition,
  status: 'draft' | 'active',
  by: Actor,
): Promise<Sequence> {
  return withTransaction(pool, async (client) => {
    const id = await insertSequence(client, d, status);
    await recordChange(client, by, {
      action: 'sequence.created',
      target: { type: 'sequence', id },
      appId: d.appId,
      details: { name: d.name, status },
    });
    return (await findSequence(client, id))!;
  });
}

/**
 * Saves an edit as a new version: followers enrolled from now on get it, running enrollments keep the
 * version they started with. The account cannot change; an archived sequence cannot be edited.
 */
export async function updateSequence(
  pool: Pool,
  id: string,
  d: SequenceDefinition,
  by: Actor,
): Promise<Sequence> {
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
    const updated = (await findSequence(client, id))!;
    await recordChange(client, by, {
      action: 'sequence.updated',
      target: { type: 'sequence', id },
      appId: d.appId,
      details: { name: d.name, version: updated.version },
    });
    return updated;
  });
}

/** Each action: the statuses it applies to, the one it leads to, and its audit entry. */
const TRANSITIONS: Record<
  SequenceAction,
  {
    from: SequenceStatus[];
    to: SequenceStatus;
    audit: (name: string, cancelledSteps: number) => AuditChange;
  }
> = {
  activate: {
    from: ['draft'],
    to: 'active',
    audit: (name) => ({ action: 'sequence.activated', details: { name } }),
  },
  pause: {
    from: ['active'],
    to: 'paused',
    audit: (name, cancelledSteps) => ({ action: 'sequence.paused', details: { name, cancelledSteps } }),
  },
  resume: {
    from: ['paused'],
    to: 'active',
    audit: (name) => ({ action: 'sequence.resumed', details: { name } }),
  },
  archive: {
    from: ['draft', 'active', 'paused'],
    to: 'archived',
    audit: (name, cancelledSteps) => ({ action: 'sequence.archived', details: { name, cancelledSteps } }),
  },
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
  by: Actor,
): Promise<{ sequence: Sequence; cancelledSteps: number }> {
  return withTransaction(pool, async (client) => {
    const current = await findSequence(client, id, true);
    if (!current) throw new NotFoundError(`sequence ${id}`);
    const { from, to, audit } = TRANSITIONS[action];
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
        actor: API_ACTOR,
      });
    }
    await setStatus(client, id, to);
    await recordChange(client, by, {
      ...audit(current.name, cancelledSteps),
      target: { type: 'sequence', id },
      appId: current.appId,
    });
    return { sequence: (await findSequence(client, id))!, cancelledSteps };
  });
}

/** Pending steps a pause or archive would cancel (for marketing's confirmation). */
export async function pendingSteps(pool: Pool, id: string): Promise<number> {
  return withTransaction(pool, (client) => countOpenSteps(client, id));
}
