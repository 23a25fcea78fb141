import type { Trigger } from '../contract';
import { MAIN_PATH } from '../contract/journeys';
import {
  type JourneyShape,
  type PathLike,
  pathField,
  planWindows,
  type StepWindow,
} from '../policy/journey-plan';
import { formatDuration } from '../wechat/window-policy';

/** A step where the journey places it: its field, a label for messages, its number, and its window. */
export interface PlacedStep<S> {
  readonly step: S;
  /** Its field: `steps.<i>` on the main path, `paths.<name>.steps.<i>` else. */
  readonly at: string;
  /** How messages name it: `step 2 at +1 h`, `step 1 of path replied at +0 s`. */
  readonly label: string;
  /** Its number across the journey (`placePaths` order): results and the message rows carry it. */
  readonly number: number;
  /** Null where no window is known (an `event` or `api` trigger, a yes path on a posted event). */
  readonly window: StepWindow | null;
}

/** Every step of a well-formed journey (`journeyIssues` found nothing), in step-number order, with its window (src/policy/journey-plan.ts). */
export function placeSteps<S extends { readonly offsetMs: number; readonly beforeWindowCloseMs?: number }>(
  trigger: Trigger,
  journey: JourneyShape<{ readonly steps: readonly S[]; readonly wait?: PathLike['wait'] }>,
): PlacedStep<S>[] {
  return planWindows(trigger, journey).flatMap(({ name, path, firstStep, windows }) =>
    path.steps.map((step, i) => {
      const before = step.beforeWindowCloseMs;
      const when =
        before === undefined
          ? `at +${formatDuration(step.offsetMs) || '0 s'}`
          : `${formatDuration(before)} before the window closes`;
      return {
        step,
        at: `${pathField(name)}steps.${i}`,
        label: name === MAIN_PATH ? `step ${i + 1} ${when}` : `step ${i + 1} of path ${name} ${when}`,
        number: firstStep + i,
        window: windows[i],
      };
    }),
  );
}
