import { MAX_DEPTH, MAX_JOURNEY_STEPS, type Wait } from '../../../src/contract';
import {
  journeyIssues,
  type JourneyShape,
  type PathLike,
  placePaths,
  waitStartMs,
} from '../../../src/sequences/journey-tree';
import { windowAnchors } from '../../../src/sequences/journey-windows';

const HOUR = 3_600_000;
const steps = (...offsets: number[]) => offsets.map((offsetMs) => ({ offsetMs }));
const reply = (yes: string, no: string | null = null, timeoutMs = 24 * HOUR): Wait => ({
  until: { type: 'message' },
  timeoutMs,
  yes,
  no,
});
const path = (offsets: number[], wait?: Wait): PathLike => ({
  steps: steps(...offsets),
  ...(wait ? { wait } : {}),
});

/** main → (reply) replied → (click) clicked | ignored; main → (timeout) silent. */
const TWO_LEVELS: JourneyShape = {
  main: path([0, HOUR], reply('replied', 'silent')),
  paths: {
    silent: path([0]),
    replied: path([0, 60_000], {
      until: { type: 'click', key: 'BUY' },
      timeoutMs: HOUR,
      yes: 'clicked',
      no: 'ignored',
    }),
    clicked: path([0]),
    ignored: path([HOUR]),
  },
};

describe('journeyIssues', () => {
  it('finds nothing wrong with a tree whose paths are all reached', () => {
    expect(journeyIssues(TWO_LEVELS)).toEqual([]);
    expect(journeyIssues({ main: path([0]), paths: {} })).toEqual([]);
  });

  it('names a wait that leads to a path not declared', () => {
    expect(journeyIssues({ main: path([0], reply('nowhere')), paths: {} })).toEqual([
      { path: 'wait.yes', message: 'names no path: declare paths.nowhere' },
    ]);
  });

  it('refuses a loop back to a path on the route, naming the wait that closes it', () => {
    const issues = journeyIssues({
      main: path([0], reply('a')),
      paths: { a: path([0], reply('b')), b: path([0], reply('a')) },
    });
    expect(issues).toEqual([
      { path: 'paths.b.wait.yes', message: expect.stringContaining('leads back to path a') },
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
      },
      { path: `paths.p${MAX_DEPTH + 1}`, message: expect.stringContaining('unreachable') },
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
    expect(issues).toEqual([{ path: 'paths', message: expect.stringContaining(`${many.length * 2} steps`) }]);
  });

  it('reads a path named like an Object property as undeclared, not as the prototype’s', () => {
    expect(journeyIssues({ main: path([0], reply('constructor')), paths: {} })).toEqual([
      { path: 'wait.yes', message: 'names no path: declare paths.constructor' },
    ]);
  });
});

describe('placePaths', () => {
  it('numbers steps across the journey: main, then each yes path before its no path, depth first', () => {
    const placed = placePaths(TWO_LEVELS);
    expect(placed.map((p) => [p.name, p.firstStep, p.depth, p.entry])).toEqual([
      ['main', 0, 0, null],
      ['replied', 2, 1, { from: 'main', branch: 'yes' }],
      ['clicked', 4, 2, { from: 'replied', branch: 'yes' }],
      ['ignored', 5, 2, { from: 'replied', branch: 'no' }],
      ['silent', 6, 1, { from: 'main', branch: 'no' }],
    ]);
  });

  it('does not depend on the order paths are declared in', () => {
    const reversed = { ...TWO_LEVELS, paths: Object.fromEntries(Object.entries(TWO_LEVELS.paths).reverse()) };
    expect(placePaths(reversed).map((p) => p.name)).toEqual(placePaths(TWO_LEVELS).map((p) => p.name));
  });
});

describe('waitStartMs', () => {
  it('is the wait’s afterMs, else its path’s last step’s offset', () => {
    expect(waitStartMs(path([0, HOUR], reply('a')))).toBe(HOUR);
    expect(waitStartMs(path([0, HOUR], { ...reply('a'), afterMs: 2 * HOUR }))).toBe(2 * HOUR);
    expect(waitStartMs(path([], reply('a')))).toBe(0);
  });
});

describe('windowAnchors', () => {
  it('a reply opens a fresh window; a timeout continues the trigger’s; a posted event opens none', () => {
    const journey: JourneyShape = {
      main: path([0, HOUR], reply('replied', 'silent', 24 * HOUR)),
      paths: {
        replied: path([0], {
          until: { type: 'event', name: 'paid' },
          timeoutMs: HOUR,
          yes: 'paid',
          no: 'unpaid',
        }),
        paid: path([0]),
        unpaid: path([0]),
        silent: path([0]),
      },
    };
    const anchors = windowAnchors({ type: 'subscribe' }, placePaths(journey));
    expect(Object.fromEntries(anchors)).toEqual({
      main: { kind: 'subscribe', sinceMs: 0, sent: 0 },
      replied: { kind: 'message', sinceMs: 0, sent: 0 },
      paid: null,
      unpaid: { kind: 'message', sinceMs: HOUR, sent: 1 },
      silent: { kind: 'subscribe', sinceMs: 25 * HOUR, sent: 2 },
    });
  });

  it('an api or event trigger leaves the main path and its timeouts without a window', () => {
    const anchors = windowAnchors(
      { type: 'api' },
      placePaths({ main: path([0], reply('a', 'b')), paths: { a: path([0]), b: path([0]) } }),
    );
    expect(Object.fromEntries(anchors)).toEqual({
      main: null,
      a: { kind: 'message', sinceMs: 0, sent: 0 },
      b: null,
    });
  });
});
