import { type Pool, withTransaction } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import { countEnrollments, deleteSequence, DELETABLE_STATUSES } from '../store/delete-sequence';
import { findSequence } from '../store/sequence-store';
import { type Actor, recordChange } from '../store/audit-log';

const isDeletableStatus = (status: string): boolean =>
  (DELETABLE_STATUSES as readonly string[]).includes(status);

/**
 * Deletes a sequence that nothing depends on: a draft, or an archived sequence that never enrolled anyone.
 * Refused with a 409 that says what to do otherwise: an active or paused one is archived first (which
 * cancels its pending steps through the ledger, as archiving does); one that enrolled followers keeps its
 * results and their messages as history — archived, it neither enrolls nor sends. Nothing is written
 * when refused.
 */
export async function removeSequence(pool: Pool, id: string, by: Actor): Promise<void> {
  await withTransaction(pool, async (client) => {
    const current = await findSequence(client, id, true);
    if (!current) throw new NotFoundError(`sequence ${id}`);
    if (!isDeletableStatus(current.status)) {
      throw new ConflictError(
        'sequence_not_archived',
        `sequence ${id} is ${current.status}: archive it first (POST /v1/sequences/${id}/archive cancels its pending steps), then delete it`,
        { status: current.status },
      );
    }
    const enrollments = await countEnrollments(client, id);
    if (enrollments > 0) {
      throw new ConflictError(
        'sequence_has_history',
        `sequence ${id} enrolled ${enrollments} follower(s): its results and their messages are history and are kept; archived, it neither enrolls nor sends`,
        { enrollments },
      );
    }
    if (!(await deleteSequence(client, id))) {
      // Only a concurrent change between the checks and the delete gets here; the row lock prevents it.
      throw new ConflictError('sequence_status', `sequence ${id} changed while it was being deleted`);
    }
    await recordChange(client, by, {
      action: 'sequence.deleted',
      target: { type: 'sequence', id },
      appId: current.appId,
      details: { name: current.name },
    });
  });
}
