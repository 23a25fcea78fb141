import { parseSequenceDefinition } from '../../../src/sequences/sequence-schema';
import { WINDOW_PRESETS } from '../../../src/wechat/window-policy';
import { definitionRefusal } from '../../helpers/definition-refusal';

const APP = 'wx0123456789abcdef';
const HOUR = 3_600_000;
const policyOf = (appId: string) => (appId === APP ? WINDOW_PRESETS.official : undefined);
const text = (content: string) => ({ msgtype: 'text', text: { content } });
const template = { template_id: 'TPL', data: { thing1: { value: '还在吗' } } };

/** Follow → welcome; wait a day for a reply: thank those who write, remind the others with a template. */
const aJourney = (overrides: Record<string, unknown> = {}): Journey => ({
  appId: APP,
  name: 'welcome journey',
  trigger: { type: 'subscribe' },
  steps: [{ offsetMs: 0, message: text('welcome') }],
  wait: { until: { type: 'message' }, timeoutMs: 24 * HOUR, yes: 'replied', no: 'silent' },
  paths: {
    replied: {
      steps: [
        { offsetMs: 0, message: text('thanks') },
        { offsetMs: HOUR, message: text('a tip') },
      ],
    },
    silent: { steps: [{ offsetMs: 0, message: text('still there?'), fallback: template }] },
  },
  ...overrides,
});

interface Journey {
  [field: string]: unknown;
  paths: Record<string, { steps: Record<string, unknown>[] }>;
}

const refusal = (input: unknown) => definitionRefusal(input, policyOf);

describe('parseSequenceDefinition: journeys', () => {
  it('keeps the wait and the paths; a straight sequence has none', () => {
    const d = parseSequenceDefinition(aJourney(), policyOf);
    expect(d.wait).toEqual({
      until: { type: 'message' },
      timeoutMs: 24 * HOUR,
      yes: 'replied',
      no: 'silent',
    });
    expect(Object.keys(d.paths)).toEqual(['replied', 'silent']);
    expect(d.paths.replied.steps.map((s) => s.offsetMs)).toEqual([0, HOUR]);
    const straight = parseSequenceDefinition(aJourney({ wait: undefined, paths: undefined }), policyOf);
    expect([straight.wait, straight.paths]).toEqual([null, {}]);
  });

  it('plans a yes path on a reply in the reply’s fresh 48-hour window: no fallback needed', () => {
    expect(() => parseSequenceDefinition(aJourney(), policyOf)).not.toThrow();
  });

  it('plans a no path in the trigger’s window, at the timeout: past a follow’s minute, a fallback is needed', () => {
    const journey = aJourney();
    journey.paths.silent.steps[0] = { offsetMs: 0, message: text('still there?') };
    expect(refusal(journey)).toEqual([
      {
        path: 'paths.silent.steps.0',
        message: expect.stringMatching(
          /^step 1 of path silent at \+0 ms falls outside the contact window: a follow/,
        ),
      },
    ]);
  });

  it('counts a yes path’s messages in the reply’s window: a sixth needs a fallback', () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ offsetMs: i * 1000, message: text(`m${i}`) }));
    const journey = aJourney();
    journey.paths.replied.steps = six;
    expect(refusal(journey)).toEqual([
      { path: 'paths.replied.steps.5', message: expect.stringContaining('would be message 6') },
    ]);
  });

  it.each([
    ['a wait without a timeout', { wait: { until: { type: 'message' }, yes: 'replied' } }, 'wait.timeoutMs'],
    [
      'a wait shorter than a second',
      { wait: { until: { type: 'message' }, timeoutMs: 10, yes: 'replied' } },
      'wait.timeoutMs',
    ],
    [
      'a wait for an unknown action',
      { wait: { until: { type: 'birthday' }, timeoutMs: HOUR, yes: 'replied' } },
      'wait.until.type',
    ],
    ['a path named main', { paths: { main: { steps: [] } } }, 'paths.main'],
    ['a path name with a space', { paths: { 'a b': { steps: [] } } }, 'paths.a b'],
  ])('refuses %s, naming the field', (_what, overrides, path) => {
    expect(refusal(aJourney(overrides))).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('refuses a wait leading nowhere, a loop, an unreachable path — naming each field', () => {
    const broken = aJourney({
      wait: { until: { type: 'message' }, timeoutMs: HOUR, yes: 'replied', no: 'missing' },
      paths: {
        replied: {
          steps: [{ offsetMs: 0, message: text('thanks') }],
          wait: { until: { type: 'click', key: 'BUY' }, timeoutMs: HOUR, yes: 'replied' },
        },
        orphan: { steps: [{ offsetMs: 0, message: text('never') }] },
      },
    });
    expect(refusal(broken).map((d) => d.path)).toEqual(['paths.replied.wait.yes', 'wait.no', 'paths.orphan']);
  });

  it('refuses a sequence with neither steps nor a wait', () => {
    expect(refusal(aJourney({ steps: [], wait: undefined, paths: undefined }))).toEqual([
      { path: 'steps', message: 'a sequence needs at least one step (or a wait)' },
    ]);
  });

  it('checks every path’s messages: a bad one on a branch is named where it is', () => {
    const journey = aJourney();
    journey.paths.replied.steps[1] = { offsetMs: HOUR, message: { msgtype: 'text', text: { content: '' } } };
    expect(refusal(journey)).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^paths\.replied\.steps\.1\.message/) }),
    ]);
  });
});
