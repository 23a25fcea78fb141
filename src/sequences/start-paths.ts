import type { PoolClient } from '../db/pool';
import { findEnrollmentVars } from '../store/enrollments';
import { insertWaits, type NewWait, type ResolvedWait } from '../store/journey-waits';
import type { NewMessage } from '../store/message-store';
import { findVersions, versionKey } from '../store/sequence-store';
import { nextPath, planPath } from './plan-path';

/** A path a resolved wait started, with how many steps it scheduled. */
export interface StartedPath {
  readonly sequenceId: string;
  readonly enrollmentId: string;
  readonly path: string;
  readonly steps: number;
}

/**
 * Starts the path each resolved wait leads to on `branch` — the enrollment's own version's path, from the
 * wait's resolution time, with the enrollment's variables — recording the waits those paths end in, in
 * the caller's transaction. Returns the steps to schedule (`insertScheduled`, in the same transaction) and
 * the path each resolved wait started (null where the journey ends there).
 */
export async function startNextPaths(
  db: PoolClient,
  resolved: readonly (ResolvedWait & { readonly requestId: string | null })[],
  branch: 'yes' | 'no',
): Promise<{ messages: NewMessage[]; started: (StartedPath | null)[] }> {
  if (resolved.length === 0) return { messages: [], started: [] };
  const versions = await findVersions(db, resolved);
  const vars = await findEnrollmentVars(
    db,
    resolved.map((r) => r.enrollmentId),
  );
  const messages: NewMessage[] = [];
  const waits: NewWait[] = [];
  const started = resolved.map((r) => {
    const journey = versions.get(versionKey(r.sequenceId, r.version));
    if (!journey) throw new Error(`sequence ${r.sequenceId} has no version ${r.version}`);
    const path = nextPath(journey, r.path, branch);
    if (path === null) return null;
    const planned = planPath(journey, {
      enrollmentId: r.enrollmentId,
      appId: r.appId,
      openid: r.openid,
      sequenceId: r.sequenceId,
      version: r.version,
      path,
      at: r.at,
      requestId: r.requestId,
      vars: vars.get(r.enrollmentId) ?? {},
    });
    messages.push(...planned.messages);
    if (planned.wait) waits.push(planned.wait);
    return { sequenceId: r.sequenceId, enrollmentId: r.enrollmentId, path, steps: planned.messages.length };
  });
  await insertWaits(db, waits);
  return { messages, started };
}
