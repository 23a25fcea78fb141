import { newMessageId } from '../store/message-id';
import type { PoolClient } from '../db/pool';
import { insertEnrollments } from '../store/enrollments';
import type { NewMessage } from '../store/message-store';
import type { Trigger } from '../contract';
import { listActive, type Sequence } from '../store/sequence-store';
import { chooseVariant } from './choose-variant';
import { type RenderedStep, renderStep } from './render-step';

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
 * dedupe key), or once ever for `oncePerFollower` sequences — and returns, per follower, the steps to
 * schedule, due at the interaction time plus each step's offset. The active sequences are read once per
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
    })),
  );
  const steps: NewMessage[][] = enrollees.map(() => []);
  wanted.forEach(({ n, sequence }, k) => {
    const enrollmentId = ids[k];
    if (enrollmentId) steps[n].push(...stepsOf(enrollees[n], sequence, enrollmentId));
  });
  return steps;
}

/**
 * The rows of one enrollment: each step due at the enrollment time plus its offset, its variables filled
 * from `steps` (rendered by the caller) or, for a push's enrollment, from their defaults; an A/B step's row
 * records the follower's variant.
 */
export function stepsOf(
  input: Pick<Enrollee, 'appId' | 'openid' | 'at' | 'requestId'>,
  sequence: Sequence,
  enrollmentId: string,
  rendered: readonly RenderedStep[] = sequence.steps.map((step, i) =>
    renderStep(
      chooseVariant(step, { sequenceId: sequence.id, stepIndex: i, openid: input.openid }),
      i,
      {},
      null,
    ),
  ),
): NewMessage[] {
  return sequence.steps.map((step, index): NewMessage => ({
    id: newMessageId(new Date(input.at.getTime() + step.offsetMs)),
    appId: input.appId,
    openid: input.openid,
    channel: 'custom',
    payload: rendered[index].message,
    dueAt: new Date(input.at.getTime() + step.offsetMs),
    idempotencyKey: null,
    requestHash: null,
    cancelKey: null,
    maxLatenessMs: step.maxLatenessMs ?? null,
    frequencyCapped: true,
    requestId: input.requestId,
    fallback: rendered[index].fallback,
    fallbackChannel: rendered[index].fallbackChannel,
    step: { sequenceId: sequence.id, enrollmentId, index, variant: rendered[index].variant },
  }));
}
