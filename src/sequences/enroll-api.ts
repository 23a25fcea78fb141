import { randomUUID } from 'node:crypto';
import { type EnrollmentView, MAIN_PATH } from '../contract';
import { AppError, ConflictError, ValidationError } from '../errors';
import { withTransaction } from '../db/pool';
import { insertScheduled, publishScheduled, type ScheduleDeps } from '../scheduling/schedule-messages';
import { findEnrollments, insertEnrollments } from '../store/enrollments';
import type { Sequence } from '../store/sequence-store';
import type { IssueDetail } from '../validation';
import { savePlans, windowEndsOf } from './save-plans';
import { hasLastChance, planPath, renderJourney } from './plan-path';
import type { RenderedStep } from './render-step';

/** One enrollment asked of the API (`enrollmentRequestSchema`). */
export interface EnrollmentRequest {
  readonly openid: string;
  readonly vars: Readonly<Record<string, string>>;
  readonly idempotencyKey?: string;
}

/** Refuses enrollments into a sequence that is not active (409 `sequence_not_active`). */
export function assertEnrollable(sequence: Sequence): void {
  if (sequence.status !== 'active') {
    throw new ConflictError(
      'sequence_not_active',
      `sequence ${sequence.id} is ${sequence.status}, not active`,
    );
  }
}

/**
 * Enrolls followers in an active sequence now, whatever its trigger, each with its request's variables
 * filled into every step of every path and checked against WeChat's limits before anything is written
 * (the variables are kept for the paths the enrollment starts later; a variable
 * without value or default, or a rendered message over a limit, refuses that request alone with a 400
 * naming it). The enrollments and their steps commit together, in one transaction for the whole list.
 * A repeated `idempotencyKey` for a follower — or a second enrollment in a once-per-follower sequence —
 * writes nothing and answers the enrollment there is (`created: false`). Answers per request, in order.
 */
export async function enrollThroughApi(
  deps: ScheduleDeps,
  sequence: Sequence,
  requests: readonly EnrollmentRequest[],
  requestId: string | null,
): Promise<(EnrollmentView | AppError)[]> {
  assertEnrollable(sequence);
  const answers: (EnrollmentView | AppError | null)[] = requests.map(() => null);
  const valid: {
    k: number;
    openid: string;
    dedupe: string;
    vars: Readonly<Record<string, string>>;
    rendered: RenderedStep[];
  }[] = [];
  requests.forEach((request, k) => {
    const issues: IssueDetail[] = [];
    const follower = { sequenceId: sequence.id, openid: request.openid };
    const rendered = renderJourney(sequence, follower, request.vars, issues);
    if (issues.length > 0) answers[k] = new ValidationError('invalid enrollment', issues);
    else
      valid.push({
        k,
        openid: request.openid,
        dedupe: dedupeOf(sequence, request),
        vars: request.vars,
        rendered,
      });
  });

  const at = new Date();
  const { ids, scheduled } = await withTransaction(deps.pool, async (tx) => {
    const enrolled = await insertEnrollments(
      tx,
      valid.map((v) => ({
        appId: sequence.appId,
        openid: v.openid,
        sequenceId: sequence.id,
        version: sequence.version,
        dedupe: v.dedupe,
        vars: v.vars,
      })),
    );
    const needs = hasLastChance(sequence, MAIN_PATH);
    const windowEnd = await windowEndsOf(
      tx,
      valid.map((v) => ({ appId: sequence.appId, openid: v.openid, needs })),
    );
    const planned = valid.flatMap((v, j) => {
      const enrollmentId = enrolled[j];
      if (!enrollmentId) return [];
      const start = {
        enrollmentId,
        appId: sequence.appId,
        openid: v.openid,
        sequenceId: sequence.id,
        version: sequence.version,
        path: MAIN_PATH,
        at,
        requestId,
        vars: v.vars,
        windowEndsAt: windowEnd(sequence.appId, v.openid),
      };
      return [planPath(sequence, start, v.rendered)];
    });
    const steps = await savePlans(tx, planned);
    return { ids: enrolled, scheduled: await insertScheduled(deps, tx, steps) };
  });
  await publishScheduled(deps, scheduled);
  const results = scheduled.results;

  let row = 0;
  const view = (
    v: (typeof valid)[number],
    enrollmentId: string,
    created: boolean,
    messages: EnrollmentView['messages'],
  ) =>
    ({ enrollmentId, sequenceId: sequence.id, openid: v.openid, created, messages }) satisfies EnrollmentView;
  valid.forEach((v, j) => {
    const id = ids[j];
    if (!id) return;
    const messages = results
      .slice(row, (row += sequence.steps.length))
      .map((r, stepIndex) => ({ id: r.message.id, stepIndex, dueAt: r.message.dueAt.toISOString() }));
    answers[v.k] = view(v, id, true, messages);
  });
  const repeats = valid.filter((_, j) => !ids[j]);
  const existing = await findEnrollments(
    deps.pool,
    sequence.id,
    repeats.map((v) => v.dedupe),
  );
  for (const v of repeats) {
    const found = existing.get(v.dedupe);
    if (!found) throw new Error(`enrollment ${v.dedupe} of sequence ${sequence.id} vanished`);
    const messages = found.messages.map((m) => ({ ...m, dueAt: m.dueAt.toISOString() }));
    answers[v.k] = view(v, found.id, false, messages);
  }
  return answers as (EnrollmentView | AppError)[];
}

/** Once per follower ever, or once per idempotency key (per follower), or every time without one. */
function dedupeOf(sequence: Sequence, request: EnrollmentRequest): string {
  if (sequence.oncePerFollower) return request.openid;
  return `api:${request.openid}:${request.idempotencyKey ?? randomUUID()}`;
}
