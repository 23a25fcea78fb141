import type { PoolClient } from '../db/pool';
import { insertConversions, listGoalCandidates } from '../store/journey-conversions';
import { meetsCondition } from './follower-actions';
import type { ActionInput } from './meet-waits';

/**
 * Offers each follower's action to the goals of their enrollments: an enrollment whose version's goal it
 * meets, within the goal's period of the enrollment, converts — once, attributed to the last message sent
 * to it before the action (in the caller's transaction). Returns per input how many enrollments converted.
 * An enrollment converts whether or not it is still running: a purchase a week after the last step
 * counts, within the period.
 */
export async function recordConversions(db: PoolClient, inputs: readonly ActionInput[]): Promise<number[]> {
  const converted = inputs.map(() => 0);
  const candidates = await listGoalCandidates(db, inputs);
  const met = candidates.filter((c) => meetsCondition(c.goal.until, inputs[c.index].action));
  if (met.length === 0) return converted;
  const recorded = new Set(
    await insertConversions(
      db,
      met.map((c) => ({
        enrollmentId: c.enrollmentId,
        sequenceId: c.sequenceId,
        version: c.version,
        appId: inputs[c.index].appId,
        openid: inputs[c.index].openid,
        at: inputs[c.index].at,
      })),
    ),
  );
  for (const c of met) if (recorded.has(c.enrollmentId)) converted[c.index] += 1;
  return converted;
}
