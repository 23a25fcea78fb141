import type { Json, Step, TemplateMessage } from './types.js';

/** What a page shows for a step: its message and fallback, or an A/B step's first variant's. */
export function shownContent(step: Step): { message: Json; fallback: TemplateMessage | null } {
  const shown = step.variants?.[0] ?? step;
  return { message: shown.message ?? {}, fallback: shown.fallback ?? null };
}

/** Whether every message of the step (each variant's, for an A/B step) has a template fallback. */
export function hasFallback(step: Step): boolean {
  return step.variants ? step.variants.every((v) => v.fallback) : Boolean(step.fallback);
}
