import {
  type JourneyShape,
  pathField,
  placePaths,
  planWindows,
  sentSinceOpenedMs,
  stepWindowFit,
  waitStartMs,
  windowAnchors,
} from '../../../src/policy/journey-plan';
import { aPath, aReplyWait, aTwoLevelJourney, HOUR } from '../../helpers/journey-shapes';
import type { WindowPolicy } from '../../../src/policy/window-rule';
import { placeSteps } from '../../../src/sequences/journey-windows';
import { windowIssues } from '../../../src/sequences/window-issues';

const TWO_LEVELS = aTwoLevelJourney();
const path = aPath;
const reply = aReplyWait;

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

describe('placePaths on a draft (the editor previews journeys the server would refuse)', () => {
  it('skips a wait to a path not declared, and does not follow a loop back', () => {
    const placed = placePaths({
      main: path([0], reply('a', 'nowhere')),
      paths: { a: path([0], reply('main2', null)), main2: path([0], reply('a')) },
    });
    expect(placed.map((p) => p.name)).toEqual(['main', 'a', 'main2']);
  });
});

describe('pathField', () => {
  it('names the main path’s fields at the top, a named path’s under paths.<name>', () => {
    expect(pathField('main')).toBe('');
    expect(pathField('yes')).toBe('paths.yes.');
  });
});

/** A follow allows 3 messages within 1 h; a message allows 5 within 48 h. */
const POLICY: WindowPolicy = {
  subscribe: { windowMs: HOUR, count: 3 },
  message: { windowMs: 48 * HOUR, count: 5 },
  click: { windowMs: 48 * HOUR, count: 5 },
  scan: { windowMs: 48 * HOUR, count: 5 },
};

describe('planWindows and stepWindowFit', () => {
  const journey: JourneyShape = {
    main: path([0, 30 * 60_000], reply('replied', 'silent', 2 * HOUR)),
    paths: {
      replied: path([0, 47 * HOUR, 49 * HOUR]),
      silent: { steps: [{ offsetMs: 0 }, { offsetMs: 0, beforeWindowCloseMs: 60_000 }] },
    },
  };

  it('places each step in its path’s window: a reply opens a fresh one, a timeout continues the trigger’s', () => {
    const planned = planWindows({ type: 'subscribe' }, journey);
    expect(planned.map((p) => [p.name, p.windows])).toEqual([
      [
        'main',
        [
          { kind: 'subscribe', index: 0, sinceMs: 0 },
          { kind: 'subscribe', index: 1, sinceMs: 30 * 60_000 },
        ],
      ],
      [
        'replied',
        [
          { kind: 'message', index: 0, sinceMs: 0 },
          { kind: 'message', index: 1, sinceMs: 47 * HOUR },
          { kind: 'message', index: 2, sinceMs: 49 * HOUR },
        ],
      ],
      [
        'silent',
        [
          { kind: 'subscribe', index: 2, sinceMs: 150 * 60_000 },
          { kind: 'subscribe', index: 3, sinceMs: 150 * 60_000, beforeCloseMs: 60_000 },
        ],
      ],
    ]);
  });

  it('says which steps fall outside: past the window’s end, or beyond its count', () => {
    const fits = planWindows({ type: 'subscribe' }, journey).map((p) =>
      p.windows.map((w) => w && stepWindowFit(POLICY, w)),
    );
    expect(fits).toEqual([
      [null, null],
      [null, null, 'late'],
      ['late', 'late'],
    ]);
  });

  it('times a last-chance step at the window’s end less its lead, but not before its path starts', () => {
    const w = { kind: 'subscribe' as const, index: 0, sinceMs: 0, beforeCloseMs: 60_000 };
    expect(sentSinceOpenedMs(POLICY, w)).toBe(HOUR - 60_000);
    expect(sentSinceOpenedMs(POLICY, { ...w, sinceMs: 2 * HOUR })).toBe(2 * HOUR);
    expect(sentSinceOpenedMs(null, w)).toBe(0);
  });

  it('is what the server’s save-time check refuses: a step outside without a fallback, step for step', () => {
    const fromPlan = planWindows({ type: 'subscribe' }, journey).flatMap((p) =>
      p.windows.map((w) => w !== null && stepWindowFit(POLICY, w) !== null),
    );
    const fromServer = placeSteps({ type: 'subscribe' }, journey).map(
      ({ window, label, at }) => window !== null && windowIssues(POLICY, window, label, at).length > 0,
    );
    expect(fromServer).toEqual(fromPlan);
  });

  it('knows no window after an api trigger, nor on the yes path of a posted event', () => {
    const planned = planWindows(
      { type: 'api' },
      {
        main: path([0], { until: { type: 'event', name: 'paid' }, timeoutMs: HOUR, yes: 'a', no: 'b' }),
        paths: { a: path([0]), b: path([0]) },
      },
    );
    expect(planned.map((p) => [p.name, p.anchor, p.windows])).toEqual([
      ['main', null, [null]],
      ['a', null, [null]],
      ['b', null, [null]],
    ]);
  });
});
