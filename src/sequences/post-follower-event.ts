import type { FollowerEventView, StartedEnrollment } from '../contract';
import { API_ACTOR } from '../store/ledger';
import { ConflictError } from '../errors';
import { withTransaction } from '../db/pool';
import { insertScheduled, publishScheduled, type ScheduleDeps } from '../scheduling/schedule-messages';
import {
  findFollowerEventByKey,
  insertFollowerEvent,
  saveFollowerEventAnswer,
  type NewFollowerEvent,
  type PriorFollowerEvent,
} from '../store/follower-events';
import type { NewMessage } from '../store/message-store';
import { applyExits } from './apply-exits';
import { enrollFollowers } from './enroll';
import { meetWaits } from './meet-waits';
import { mergeEnrollmentVars } from '../store/enrollments';
import { recordConversions } from './record-conversions';

export interface FollowerEventInput extends NewFollowerEvent {
  /** Values for the variables of the follower's enrollments (`{}`: none). */
  readonly vars: Readonly<Record<string, string>>;
  readonly requestId: string | null;
}

/** The answer, and whether this request recorded the event (false: a repeated idempotency key). */
export interface FollowerEventResult {
  readonly view: FollowerEventView;
  readonly created: boolean;
}

/**
 * Another system says the follower did something (`purchased`, `course_signup`). In one transaction: the
 * event is recorded, its `vars` merged into the variables of the follower's enrollments, the running
 * enrollments whose exit conditions it meets end (`applyExits`), the waits (for the event, or for a
 * variable it gave a value)
 * it meets take their yes paths (`meetWaits`), and the active sequences it triggers enroll the follower as a push would (once per event, or once ever with
 * `oncePerFollower`), their steps due from the event's time. It is no interaction: it opens no contact
 * window. The follower need not be known. A repeated idempotency key answers the first answer and changes
 * nothing; the same key with another name or follower is a conflict.
 */
export async function postFollowerEvent(
  deps: ScheduleDeps,
  input: FollowerEventInput,
): Promise<FollowerEventResult> {
  const { result, scheduled } = await withTransaction(deps.pool, async (client) => {
    const recorded = await insertFollowerEvent(client, input);
    if (!recorded) {
      const prior = await findFollowerEventByKey(client, input.appId, input.idempotencyKey!);
      return { result: { view: replayed(prior, input), created: false }, scheduled: null };
    }
    const follower = { appId: input.appId, openid: input.openid };
    const given = Object.keys(input.vars).filter((name) => input.vars[name] !== '');
    if (Object.keys(input.vars).length > 0) await mergeEnrollmentVars(client, follower, input.vars);
    const event = { type: 'event', name: input.name, vars: given } as const;
    const [exited] = await applyExits(client, [{ ...follower, event }], API_ACTOR);
    const action = { ...follower, action: event, at: recorded.at, requestId: input.requestId };
    const waited = await meetWaits(client, [action]);
    const continued = waited.started[0].length;
    if (continued > 0) deps.metrics.journeyWaits.inc({ outcome: 'yes', by: 'event' }, continued);
    const [converted] = await recordConversions(client, [action]);
    const [steps] = await enrollFollowers(client, [
      { ...follower, event, pushKey: `event:${recorded.id}`, at: recorded.at, requestId: input.requestId },
    ]);
    const view: FollowerEventView = {
      eventId: recorded.id,
      name: input.name,
      at: recorded.at.toISOString(),
      exited,
      enrolled: started(steps),
      continued: waited.started[0],
      converted,
    };
    await saveFollowerEventAnswer(client, recorded.id, view);
    if (exited.length > 0) deps.metrics.cancelled.inc({ scope: 'enrollment' }, exited.length);
    const scheduled = await insertScheduled(deps, client, [...waited.messages, ...steps]);
    return { result: { view, created: true }, scheduled };
  });
  if (scheduled) await publishScheduled(deps, scheduled);
  return result;
}

/** The first answer, when the repeat is the same request (an unfollow since erased the openid it had). */
function replayed(prior: PriorFollowerEvent, input: FollowerEventInput): FollowerEventView {
  if (prior.name !== input.name || (prior.openid !== '' && prior.openid !== input.openid)) {
    throw new ConflictError(
      'idempotency_key_reused',
      `idempotencyKey ${input.idempotencyKey} was already used for a different event`,
      { existingId: prior.answer.eventId },
    );
  }
  // An answer recorded before journeys has no `continued` or `converted`: it continued and converted none.
  return { ...prior.answer, continued: prior.answer.continued ?? [], converted: prior.answer.converted ?? 0 };
}

/** The enrollments the steps belong to, in order, with how many steps each scheduled. */
function started(steps: readonly NewMessage[]): StartedEnrollment[] {
  const byEnrollment = new Map<string, StartedEnrollment>();
  for (const { step } of steps) {
    if (!step) continue;
    const seen = byEnrollment.get(step.enrollmentId);
    byEnrollment.set(step.enrollmentId, {
      sequenceId: step.sequenceId,
      enrollmentId: step.enrollmentId,
      steps: (seen?.steps ?? 0) + 1,
    });
  }
  return [...byEnrollment.values()];
}
