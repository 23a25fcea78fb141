import type { PoolClient } from '../db/pool';
import { findEnrollmentVars } from '../store/enrollments';
import type { ResolvedWait } from '../store/journey-waits';
import type { NewMessage } from '../store/message-store';
import { findVersions, versionKey } from '../store/sequence-store';
import { hasLastChance, nextPath, planPath, type PlannedPath } from './plan-path';
import { savePlans, windowEndsOf } from './save-plans';

/** A path a resolved wait started, with how many steps it scheduled. */
export interface StartedPath {
  readonly sequenceId: string;
  readonly enrollmentId: string;
  readonly path: string;
  readonly steps: number;
}

/**
 * Starts the path each resolved wait leads to on `branch` — the enrollment's own version's path, from the
 * wait's resolution time, with the enrollment's variables (and the follower's current window, for a path
 * with last-chance steps) — recording the waits those paths end in and their last-chance steps, in the
 * caller's transaction. Returns the steps to schedule (`insertScheduled`, in the same transaction) and
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
  const journeyOf = (r: ResolvedWait) => {
    const journey = versions.get(versionKey(r.sequenceId, r.version));
    if (!journey) throw new Error(`sequence ${r.sequenceId} has no version ${r.version}`);
    return journey;
  };
  const windowEnd = await windowEndsOf(
    db,
    resolved.map((r) => {
      const path = nextPath(journeyOf(r), r.path, branch);
      return { ...r, needs: path !== null && hasLastChance(journeyOf(r), path) };
    }),
  );
  const plans: PlannedPath[] = [];
  const started = resolved.map((r) => {
    const journey = journeyOf(r);
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
      windowEndsAt: windowEnd(r.appId, r.openid),
    });
    plans.push(planned);
    return { sequenceId: r.sequenceId, enrollmentId: r.enrollmentId, path, steps: planned.messages.length };
  });
  return { messages: await savePlans(db, plans), started };
}
