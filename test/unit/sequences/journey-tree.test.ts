import { MAX_DEPTH, MAX_JOURNEY_STEPS } from '../../../src/contract';
import type { JourneyShape } from '../../../src/policy/journey-plan';
import { aPath, aReplyWait, aTwoLevelJourney, HOUR } from '../../helpers/journey-shapes';
import { journeyIssues } from '../../../src/sequences/journey-tree';

const TWO_LEVELS = aTwoLevelJourney();
const path = aPath;
const reply = aReplyWait;

describe('journeyIssues', () => {
  it('finds nothing wrong with a tree whose paths are all reached', () => {
    expect(journeyIssues(TWO_LEVELS)).toEqual([]);
    expect(journeyIssues({ main: path([0]), paths: {} })).toEqual([]);
  });

  it('names a wait that leads to a path not declared', () => {
    expect(journeyIssues({ main: path([0], reply('nowhere')), paths: {} })).toEqual([
      {
        path: 'wait.yes',
        message: 'names no path: declare paths.nowhere',
        rule: { kind: 'unknown_path', name: 'nowhere' },
      },
    ]);
  });

  it('refuses a loop back to a path on the route, naming the wait that closes it', () => {
    const issues = journeyIssues({
      main: path([0], reply('a')),
      paths: { a: path([0], reply('b')), b: path([0], reply('a')) },
    });
    expect(issues).toEqual([
      {
        path: 'paths.b.wait.yes',
        message: expect.stringContaining('leads back to path a'),
        rule: { kind: 'path_loop', name: 'a' },
      },
    ]);
  });

  it('refuses a path reached by two waits: each path has one way in', () => {
    const issues = journeyIssues({
      main: path([0], reply('a', 'b')),
      paths: { a: path([0], reply('c')), b: path([0], reply('c')), c: path([0]) },
    });
    expect(issues).toEqual([
      {
        path: 'paths.b.wait.yes',
        message: expect.stringContaining('which paths.a.wait.yes leads to already'),
        rule: { kind: 'path_taken', name: 'c' },
      },
    ]);
  });

  it('names a path no wait on the journey leads to, even one an unreached path names', () => {
    const issues = journeyIssues({
      main: path([0]),
      paths: { orphan: path([0], reply('child')), child: path([0]) },
    });
    expect(issues.map((i) => i.path)).toEqual(['paths.orphan', 'paths.child']);
    expect(issues[0].message).toMatch(/unreachable/);
  });

  it(`allows ${MAX_DEPTH} waits on a route and refuses one more, at the wait that adds it`, () => {
    const chain = (waits: number): JourneyShape => {
      const names = Array.from({ length: waits }, (_, i) => `p${i + 1}`);
      const paths = Object.fromEntries(
        names.map((name, i) => [name, path([0], i + 1 < waits ? reply(names[i + 1]) : undefined)]),
      );
      return { main: path([0], reply('p1')), paths };
    };
    expect(journeyIssues(chain(MAX_DEPTH))).toEqual([]);
    expect(journeyIssues(chain(MAX_DEPTH + 1))).toEqual([
      {
        path: `paths.p${MAX_DEPTH}.wait.yes`,
        message: expect.stringContaining(`at most ${MAX_DEPTH} waits`),
        rule: { kind: 'too_deep', maximum: MAX_DEPTH },
      },
      {
        path: `paths.p${MAX_DEPTH + 1}`,
        message: expect.stringContaining('unreachable'),
        rule: { kind: 'path_unreachable' },
      },
    ]);
  });

  it('refuses a wait that starts before its path’s last step, steps out of order, an empty path', () => {
    const issues = journeyIssues({
      main: path([0, 2 * HOUR], { ...reply('a', 'b'), afterMs: HOUR }),
      paths: { a: path([HOUR, 0]), b: path([]) },
    });
    expect(issues.map((i) => i.path)).toEqual(['wait.afterMs', 'paths.a.steps.1.offsetMs', 'paths.b']);
  });

  it(`refuses more than ${MAX_JOURNEY_STEPS} steps in all`, () => {
    const many = Array.from({ length: MAX_JOURNEY_STEPS / 2 + 1 }, (_, i) => i);
    const issues = journeyIssues({ main: path(many, reply('a')), paths: { a: path(many) } });
    expect(issues).toEqual([
      {
        path: 'paths',
        message: expect.stringContaining(`${many.length * 2} steps`),
        rule: { kind: 'too_many_steps', total: many.length * 2, maximum: MAX_JOURNEY_STEPS },
      },
    ]);
  });

  it('reads a path named like an Object property as undeclared, not as the prototype’s', () => {
    expect(journeyIssues({ main: path([0], reply('constructor')), paths: {} })).toEqual([
      {
        path: 'wait.yes',
        message: 'names no path: declare paths.constructor',
        rule: { kind: 'unknown_path', name: 'constructor' },
      },
    ]);
  });
});
