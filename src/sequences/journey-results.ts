import type { Pool } from '../db/pool';
import type { ConversionResults, PathResult, SequenceResults } from '../contract';
import { journeyCounts, type JourneyCounts } from '../store/journey-counts';
import { countConversions } from '../store/journey-conversions';
import { countLastChances } from '../store/last-chance-steps';
import { sequenceResults } from '../store/sequence-results';
import { journeyShape, placePaths } from '../policy/journey-plan';

/** `GET /v1/sequences/:id/results`: per step (a last-chance step's moves and recoveries), per minute, and a journey's paths per version. */
export async function resultsOf(pool: Pool, sequenceId: string): Promise<SequenceResults> {
  const [results, counts, conversions, lastChances] = await Promise.all([
    sequenceResults(pool, sequenceId),
    journeyCounts(pool, sequenceId),
    countConversions(pool, sequenceId),
    countLastChances(pool, sequenceId),
  ]);
  return {
    ...results,
    steps: results.steps.map((step) => {
      const lastChance = lastChances.get(step.stepIndex);
      return lastChance ? { ...step, lastChance } : step;
    }),
    paths: pathResults(counts, conversions),
    conversions: conversionResults(counts, conversions),
  };
}

/** Conversions by version, step and variant (`countConversions`). */
type Conversions = Awaited<ReturnType<typeof countConversions>>;

/** The conversions' totals and rate; null when no version has a goal. */
export function conversionResults(counts: JourneyCounts, conversions: Conversions): ConversionResults | null {
  const withGoal = counts.versions.filter((v) => v.goal !== null);
  if (withGoal.length === 0) return null;
  const enrolled = withGoal.reduce((n, v) => n + (counts.enrolled.get(v.version) ?? 0), 0);
  const converted = conversions.reduce((n, c) => n + c.n, 0);
  return {
    converted,
    rate: enrolled === 0 ? 0 : converted / enrolled,
    perStep: conversions.map((c) => ({
      version: c.version,
      stepIndex: c.stepIndex,
      variant: c.variant,
      converted: c.n,
    })),
  };
}

/**
 * The funnel of each version that enrolled someone and is a journey: per path in step-number order, the
 * enrollments that entered it — the version's enrollments for the main path, the waits that took it for
 * the others — and the states of the wait that ends it.
 */
export function pathResults(counts: JourneyCounts, conversions: Conversions = []): PathResult[] {
  const waits = new Map<string, Record<string, number>>();
  for (const w of counts.waits) {
    const key = `${w.version}\u0000${w.path}`;
    waits.set(key, { ...waits.get(key), [w.state]: w.n });
  }
  const stateOf = (version: number, path: string) => waits.get(`${version}\u0000${path}`) ?? {};
  return counts.versions.flatMap((version) => {
    const enrolled = counts.enrolled.get(version.version) ?? 0;
    if (version.wait === null || enrolled === 0) return [];
    return placePaths(journeyShape(version)).map(({ name, path, firstStep, entry }): PathResult => {
      const states = stateOf(version.version, name);
      return {
        version: version.version,
        path: name,
        entered: entry ? (stateOf(version.version, entry.from)[entry.branch] ?? 0) : enrolled,
        steps: path.steps.map((_, i) => firstStep + i),
        converted: conversions
          .filter(
            (c) =>
              c.version === version.version &&
              c.stepIndex !== null &&
              c.stepIndex >= firstStep &&
              c.stepIndex < firstStep + path.steps.length,
          )
          .reduce((n, c) => n + c.n, 0),
        wait: path.wait
          ? {
              waiting: states.waiting ?? 0,
              yes: states.yes ?? 0,
              no: states.no ?? 0,
              ended: states.ended ?? 0,
            }
          : null,
      };
    });
  });
}
