import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../db/pool';
import { insertEnrollment } from '../store/enrollments';
import type { NewMessage } from '../store/message-store';
import type { Trigger } from '../contract';
import { listActive, type Sequence } from '../store/sequence-store';

/** What a push offers to the triggers: its kind and key (scene, menu key, message text). */
export type TriggerEvent =
  | { readonly type: 'subscribe'; readonly scene: string | null }
  | { readonly type: 'scan'; readonly scene: string }
  | { readonly type: 'click'; readonly key: string }
  | { readonly type: 'message'; readonly text: string };

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

/**
 * Enrolls the follower in every active sequence the event starts — once per trigger event (the push's
 * dedupe key), or once ever for `oncePerFollower` sequences — and returns the steps to schedule, due at the
 * interaction time plus each step's offset. Runs in the caller's scheduling transaction
 * (`scheduleMessages`), which writes the steps with the enrollments.
 */
export async function enrollFollower(
  db: PoolClient,
  input: {
    appId: string;
    openid: string;
    event: TriggerEvent;
    pushKey: string;
    at: Date;
    requestId: string | null;
  },
): Promise<NewMessage[]> {
  const steps: NewMessage[] = [];
  for (const sequence of matchSequences(await listActive(db, input.appId), input.event)) {
    const enrollmentId = await insertEnrollment(db, {
      appId: input.appId,
      openid: input.openid,
      sequenceId: sequence.id,
      version: sequence.version,
      dedupe: sequence.oncePerFollower ? input.openid : input.pushKey,
    });
    if (!enrollmentId) continue;
    steps.push(
      ...sequence.steps.map((step, index): NewMessage => ({
        id: randomUUID(),
        appId: input.appId,
        openid: input.openid,
        channel: 'custom',
        payload: step.message,
        dueAt: new Date(input.at.getTime() + step.offsetMs),
        idempotencyKey: null,
        requestHash: null,
        cancelKey: null,
        maxLatenessMs: step.maxLatenessMs ?? null,
        requestId: input.requestId,
        fallback: step.fallback,
        step: { sequenceId: sequence.id, enrollmentId, index },
      })),
    );
  }
  return steps;
}
