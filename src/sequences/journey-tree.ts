import { MAIN_PATH, MAX_DEPTH, MAX_JOURNEY_STEPS } from '../contract/journeys';
import { type JourneyShape, type PathLike, pathField } from '../policy/journey-plan';
import type { IssueDetail } from '../validation';

/**
 * What is wrong with the structure, each named by its field: a wait leading to a path not declared, back
 * to a path on its own route (a loop), or to a path another wait leads to already (a journey is a tree); a
 * path no wait on the journey leads to; a route with more than `MAX_DEPTH` waits; a wait that starts before
 * its path's last step; a path with neither steps nor a wait; steps out of order (a path's last-chance
 * steps last, on a path without a wait); more than
 * `MAX_JOURNEY_STEPS` steps in all.
 */
export function journeyIssues(journey: JourneyShape): IssueDetail[] {
  const issues: IssueDetail[] = [];
  const reachedBy = new Map<string, string>([[MAIN_PATH, '']]);
  const walk = (name: string, path: PathLike, route: readonly string[]): void => {
    issues.push(...pathIssues(name, path));
    const wait = path.wait;
    if (!wait) return;
    for (const branch of ['yes', 'no'] as const) {
      const next = wait[branch];
      if (next === null) continue;
      const at = `${pathField(name)}wait.${branch}`;
      const target = Object.hasOwn(journey.paths, next) ? journey.paths[next] : undefined;
      if (!target)
        issues.push({
          path: at,
          message: `names no path: declare paths.${next}`,
          rule: { kind: 'unknown_path', name: next },
        });
      else if (route.includes(next))
        issues.push({
          path: at,
          message: `leads back to path ${next}: a journey is a tree, it never loops`,
          rule: { kind: 'path_loop', name: next },
        });
      else if (reachedBy.has(next))
        issues.push({
          path: at,
          message: `leads to path ${next}, which ${reachedBy.get(next)} leads to already: each path has one way in`,
          rule: { kind: 'path_taken', name: next },
        });
      else if (route.length > MAX_DEPTH)
        issues.push({
          path: at,
          message: `is wait ${route.length} on its route: at most ${MAX_DEPTH} waits follow each other`,
          rule: { kind: 'too_deep', maximum: MAX_DEPTH },
        });
      else {
        reachedBy.set(next, at);
        walk(next, target, [...route, next]);
      }
    }
  };
  walk(MAIN_PATH, journey.main, [MAIN_PATH]);
  for (const name of Object.keys(journey.paths)) {
    if (!reachedBy.has(name))
      issues.push({
        path: `paths.${name}`,
        message: 'is unreachable: no wait on the journey leads to it (name it in a wait’s yes or no)',
        rule: { kind: 'path_unreachable' },
      });
  }
  const total = [journey.main, ...Object.values(journey.paths)].reduce((n, p) => n + p.steps.length, 0);
  if (total > MAX_JOURNEY_STEPS)
    issues.push({
      path: 'paths',
      message: `${total} steps in all: a journey has at most ${MAX_JOURNEY_STEPS}`,
      rule: { kind: 'too_many_steps', total, maximum: MAX_JOURNEY_STEPS },
    });
  return issues;
}

function pathIssues(name: string, path: PathLike): IssueDetail[] {
  const at = pathField(name);
  const issues: IssueDetail[] = [];
  path.steps.forEach((step, i) => {
    const before = path.steps[i - 1];
    if (step.beforeWindowCloseMs !== undefined) {
      if (path.wait)
        issues.push({
          path: `${at}steps.${i}.beforeWindowCloseMs`,
          message:
            'a last-chance step ends its path, and this path goes on to a wait: put it on a path the wait leads to',
          rule: { kind: 'last_chance_before_wait' },
        });
      else if (
        before?.beforeWindowCloseMs !== undefined &&
        step.beforeWindowCloseMs > before.beforeWindowCloseMs
      )
        issues.push({
          path: `${at}steps.${i}.beforeWindowCloseMs`,
          message: 'steps must be in order: this last-chance step goes out earlier than the one before',
          rule: { kind: 'last_chance_order' },
        });
    } else if (before?.beforeWindowCloseMs !== undefined)
      issues.push({
        path: `${at}steps.${i}.offsetMs`,
        message: 'last-chance steps come last on their path: move this step before them',
        rule: { kind: 'last_chance_last' },
      });
    else if (before && step.offsetMs < before.offsetMs)
      issues.push({
        path: `${at}steps.${i}.offsetMs`,
        message: 'steps must be in order: this one is earlier than the step before',
        rule: { kind: 'step_order' },
      });
  });
  const last = path.steps.at(-1)?.offsetMs ?? 0;
  if (path.wait?.afterMs !== undefined && path.wait.afterMs < last)
    issues.push({
      path: `${at}wait.afterMs`,
      message: `the wait starts before the path's last step (at ${last} ms): a wait follows its path's steps`,
      rule: { kind: 'wait_before_last_step', lastMs: last },
    });
  if (name !== MAIN_PATH && path.steps.length === 0 && !path.wait)
    issues.push({
      path: `paths.${name}`,
      message: 'has no steps and no wait: remove it, or end the wait with null',
      rule: { kind: 'empty_path' },
    });
  return issues;
}
