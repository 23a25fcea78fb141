import type { PoolClient } from '../db/pool';
import { listOpenWaits, resolveWaitsYes } from '../store/journey-waits';
import type { NewMessage } from '../store/message-store';
import { type FollowerAction, meetsCondition } from './follower-actions';
import { startNextPaths, type StartedPath } from './start-paths';

/** What a follower did, and when: a push's interaction or a posted event, offered to their open waits. */
export interface ActionInput {
  readonly appId: string;
  readonly openid: string;
  readonly action: FollowerAction;
  readonly at: Date;
  readonly requestId: string | null;
}

/**
 * Offers each follower's action to the waits of their running journeys that watch at its time: each wait
 * it meets resolves `yes` (once: one already resolved — by an earlier action, the timeout or an exit — is
 * left as it is) and its yes path starts from the action's time, in the caller's transaction. Returns the
 * steps to schedule there, and per input the yes paths it started. Run it after `applyExits`: an
 * action that ends an enrollment takes none of its paths.
 */
export async function meetWaits(
  db: PoolClient,
  inputs: readonly ActionInput[],
): Promise<{ messages: NewMessage[]; started: StartedPath[][] }> {
  const started: StartedPath[][] = inputs.map(() => []);
  const open = await listOpenWaits(db, inputs);
  const met = open.filter((w) => meetsCondition(w.condition, inputs[w.index].action));
  if (met.length === 0) return { messages: [], started };
  const indexOf = new Map(met.map((w) => [`${w.enrollmentId}\u0000${w.path}`, w.index]));
  const resolved = await resolveWaitsYes(
    db,
    met.map((w) => ({ enrollmentId: w.enrollmentId, path: w.path, at: inputs[w.index].at })),
  );
  const inputOf = (r: { enrollmentId: string; path: string }) =>
    indexOf.get(`${r.enrollmentId}\u0000${r.path}`)!;
  const paths = await startNextPaths(
    db,
    resolved.map((r) => ({ ...r, requestId: inputs[inputOf(r)].requestId })),
    'yes',
  );
  resolved.forEach((r, k) => {
    const path = paths.started[k];
    if (path) started[inputOf(r)].push(path);
  });
  return { messages: paths.messages, started };
}
