import type { PoolClient } from '../db/pool';
import { insertEnrollments } from '../store/enrollments';
import type { NewMessage } from '../store/message-store';
import { MAIN_PATH, type Trigger } from '../contract';
import { listActive, type Sequence } from '../store/sequence-store';
import { hasLastChance, planPath, type PlannedPath } from './plan-path';
import { savePlans, windowEndsOf } from './save-plans';

/** What a push or a posted event offers to the triggers: its kind and key (scene, menu key, text, name). */
export type TriggerEvent =
  | { readonly type: 'subscribe'; readonly scene: string | null }
  | { readonly type: 'scan'; readonly scene: string }
  | { readonly type: 'click'; readonly key: string }
  | { readonly type: 'message'; readonly text: string }
  | { readonly type: 'event'; readonly name: string };

function matches(trigger: Trigger, event: TriggerEvent): boolean {
  switch (trigger.type) {
    case 'subscribe':
      return event.type === 'subscribe' && (trigger.scene === undefined || trigger.scene === event.scene);
    case 'scan':
      return event.type === 'scan' && trigger.scene === event.scene;
    case 'click':
      return event.type === 'click' && trigger.key === event.key;
    case 'keyword':
      return event.type === 'message' && event.text.toLowerCase().includes(trigger.keyword.toLowerCase());
    case 'event':
      return event.type === 'event' && trigger.name === event.name;
    case 'api':
      return false;
  }
}

/**
 * The sequences an event starts. A follow from a QR code whose scene has its own sequence starts that one
 * rather than the generic follow sequences, so nobody gets two welcome series.
 */
export function matchSequences(active: readonly Sequence[], event: TriggerEvent): Sequence[] {
  const hits = active.filter((s) => matches(s.trigger, event));
  const specific = hits.filter((s) => s.trigger.type !== 'subscribe' || s.trigger.scene !== undefined);
  return event.type === 'subscribe' && specific.length > 0 ? specific : hits;
}

/** One follower's trigger event: what `enrollFollowers` enrolls. */
export interface Enrollee {
  readonly appId: string;
  readonly openid: string;
  readonly event: TriggerEvent;
  /** The push's dedupe key (or the posted event's): a follower is enrolled once per trigger event. */
  readonly pushKey: string;
  readonly at: Date;
  readonly requestId: string | null;
}

/**
 * Enrolls each follower in every active sequence its event starts — once per trigger event (the push's
 * dedupe key), or once ever for `oncePerFollower` sequences — and returns, per follower, the main path's
 * steps to schedule, due at the interaction time plus each step's offset (a last-chance step's by the
 * window the interaction opened); the wait that ends the main path, and its last-chance steps, are
 * recorded here. The active sequences are read once per
 * account and the enrollments written in one statement. Runs in the caller's transaction, which then
 * schedules the steps (`insertScheduled`), so that they commit with the enrollments.
 */
export async function enrollFollowers(
  db: PoolClient,
  enrollees: readonly Enrollee[],
): Promise<NewMessage[][]> {
  const activeByApp = new Map<string, Sequence[]>();
  for (const appId of new Set(enrollees.map((e) => e.appId)))
    activeByApp.set(appId, await listActive(db, appId));
  const wanted = enrollees.flatMap((input, n) =>
    matchSequences(activeByApp.get(input.appId) ?? [], input.event).map((sequence) => ({ n, sequence })),
  );
  if (wanted.length === 0) return enrollees.map(() => []);
  const ids = await insertEnrollments(
    db,
    wanted.map(({ n, sequence }) => ({
      appId: enrollees[n].appId,
      openid: enrollees[n].openid,
      sequenceId: sequence.id,
      version: sequence.version,
      dedupe: sequence.oncePerFollower ? enrollees[n].openid : enrollees[n].pushKey,
      vars: {},
    })),
  );
  const steps: NewMessage[][] = enrollees.map(() => []);
  const plans: PlannedPath[] = [];
  const windowEnd = await windowEndsOf(
    db,
    wanted.map(({ n, sequence }) => ({ ...enrollees[n], needs: hasLastChance(sequence, MAIN_PATH) })),
  );
  wanted.forEach(({ n, sequence }, k) => {
    const enrollmentId = ids[k];
    if (!enrollmentId) return;
    const { openid, appId, at, requestId } = enrollees[n];
    const planned = planPath(sequence, {
      enrollmentId,
      appId,
      openid,
      sequenceId: sequence.id,
      version: sequence.version,
      path: MAIN_PATH,
      at,
      requestId,
      vars: {},
      windowEndsAt: windowEnd(appId, openid),
    });
    steps[n].push(...planned.messages);
    plans.push(planned);
  });
  await savePlans(db, plans);
  return steps;
}
