import { type Pool, withTransaction } from '../db/pool';
import { ConflictError, NotFoundError } from '../errors';
import {
  definitionOf,
  findSequence,
  insertSequence,
  type Sequence,
  type StoredDefinition,
} from '../store/sequence-store';
import { type Actor, recordChange } from '../store/audit-log';

/**
 * Copies a sequence's current version as a new draft (version 1, no enrollments, no results), named
 * `name` or as the original. The copy is the definition as saved, checked when it was; the original is
 * untouched, whatever its status (an archived one may be copied to run again). A sequence of an account
 * that is gone is refused: its copy could never run.
 */
export async function duplicateSequence(
  pool: Pool,
  id: string,
  opts: { name?: string; accountExists: (appId: string) => boolean },
  by: Actor,
): Promise<Sequence> {
  return withTransaction(pool, async (client) => {
    const original = await findSequence(client, id);
    if (!original) throw new NotFoundError(`sequence ${id}`);
    if (!opts.accountExists(original.appId)) {
      throw new ConflictError(
        'account_deleted',
        `sequence ${id} belongs to account ${original.appId}, which no longer exists: a copy could never run`,
        { appId: original.appId },
      );
    }
    const copy: StoredDefinition = { ...definitionOf(original), name: opts.name ?? original.name };
    const copyId = await insertSequence(client, copy, 'draft');
    await recordChange(client, by, {
      action: 'sequence.duplicated',
      target: { type: 'sequence', id: copyId },
      appId: original.appId,
      details: { name: copy.name, copyOf: id },
    });
    return (await findSequence(client, copyId))!;
  });
}
