import type { Sequence } from '../store/sequence-store';
import type { SequenceView } from '../contract';

/** The public JSON of a sequence, at its current version. */
export function sequenceView(s: Sequence): SequenceView {
  return {
    id: s.id,
    appId: s.appId,
    name: s.name,
    status: s.status,
    version: s.version,
    oncePerFollower: s.oncePerFollower,
    trigger: s.trigger,
    exits: [...s.exits],
    steps: [...s.steps],
    wait: s.wait,
    goal: s.goal,
    paths: Object.fromEntries(
      Object.entries(s.paths).map(([name, path]) => [name, { ...path, steps: [...path.steps] }]),
    ),
    quietHours: s.quietHours,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
