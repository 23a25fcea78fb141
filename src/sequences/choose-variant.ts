import { createHash } from 'node:crypto';
import type { StepView } from '../contract';

/** What one enrollment sends for a step: the step's message, or the variant it was given. */
export interface StepContent {
  /** The variant's name; null for a step without variants. */
  readonly variant: string | null;
  readonly message: Record<string, unknown>;
  readonly fallback: Record<string, unknown> | null;
}

/**
 * A number in [0, total) from a stable hash of (sequence, step, follower): the same follower always lands
 * on the same point, so re-enrolling or re-saving the sequence (same weights) keeps the choice.
 */
function pointOf(sequenceId: string, stepIndex: number, openid: string, total: number): number {
  const digest = createHash('sha256').update(`${sequenceId}\n${stepIndex}\n${openid}`).digest();
  return digest.readUInt32BE(0) % total;
}

/** The content a follower gets for a step: for an A/B step, the variant its point falls in, by weight. */
export function chooseVariant(
  step: StepView,
  at: { readonly sequenceId: string; readonly stepIndex: number; readonly openid: string },
): StepContent {
  if (!step.variants) return { variant: null, message: step.message ?? {}, fallback: step.fallback ?? null };
  const total = step.variants.reduce((sum, v) => sum + v.weight, 0);
  let point = pointOf(at.sequenceId, at.stepIndex, at.openid, total);
  const chosen = step.variants.find((v) => (point -= v.weight) < 0) ?? step.variants[0];
  return { variant: chosen.name, message: chosen.message, fallback: chosen.fallback };
}
