import type { Wait } from '../../../src/contract';
import { pathResults } from '../../../src/sequences/journey-results';
import type { JourneyVersion } from '../../../src/store/sequence-store';

const step = { offsetMs: 0, message: { msgtype: 'text', text: { content: 'x' } } };
const wait = (yes: string, no: string | null): Wait => ({
  until: { type: 'message' },
  timeoutMs: 1000,
  yes,
  no,
});
const version = (n: number, journey: Partial<JourneyVersion> = {}): JourneyVersion => ({
  sequenceId: 's',
  version: n,
  trigger: { type: 'subscribe' },
  steps: [step],
  wait: wait('a', 'b'),
  paths: { a: { steps: [step, step] }, b: { steps: [step] } },
  goal: null,
  ...journey,
});

describe('pathResults', () => {
  it('counts each path of each version: entered from its parent wait’s outcome, and its own wait’s states', () => {
    const results = pathResults({
      versions: [
        version(1),
        version(2, {
          paths: { a: { steps: [step] }, b: { steps: [], wait: wait('c', null) }, c: { steps: [step] } },
        }),
      ],
      enrolled: new Map([
        [1, 10],
        [2, 4],
      ]),
      waits: [
        { version: 1, path: 'main', state: 'yes', n: 3 },
        { version: 1, path: 'main', state: 'no', n: 5 },
        { version: 1, path: 'main', state: 'waiting', n: 1 },
        { version: 1, path: 'main', state: 'ended', n: 1 },
        { version: 2, path: 'main', state: 'no', n: 4 },
        { version: 2, path: 'b', state: 'yes', n: 1 },
        { version: 2, path: 'b', state: 'waiting', n: 3 },
      ],
    });
    expect(results).toEqual([
      {
        version: 1,
        path: 'main',
        entered: 10,
        steps: [0],
        converted: 0,
        wait: { waiting: 1, yes: 3, no: 5, ended: 1 },
      },
      { version: 1, path: 'a', entered: 3, steps: [1, 2], converted: 0, wait: null },
      { version: 1, path: 'b', entered: 5, steps: [3], converted: 0, wait: null },
      {
        version: 2,
        path: 'main',
        entered: 4,
        steps: [0],
        converted: 0,
        wait: { waiting: 0, yes: 0, no: 4, ended: 0 },
      },
      { version: 2, path: 'a', entered: 0, steps: [1], converted: 0, wait: null },
      {
        version: 2,
        path: 'b',
        entered: 4,
        steps: [],
        converted: 0,
        wait: { waiting: 3, yes: 1, no: 0, ended: 0 },
      },
      { version: 2, path: 'c', entered: 1, steps: [2], converted: 0, wait: null },
    ]);
  });

  it('leaves out a straight version and one nobody enrolled in', () => {
    expect(
      pathResults({
        versions: [version(1, { wait: null, paths: {} }), version(2)],
        enrolled: new Map([[1, 5]]),
        waits: [],
      }),
    ).toEqual([]);
  });
});
