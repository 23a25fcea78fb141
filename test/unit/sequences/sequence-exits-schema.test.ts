import { parseSequenceDefinition } from '../../../src/sequences/sequence-schema';
import { WINDOW_PRESETS } from '../../../src/wechat/window-policy';
import { definitionRefusal } from '../../helpers/definition-refusal';

const APP = 'wx0123456789abcdef';
const policyOf = (appId: string) => (appId === APP ? WINDOW_PRESETS.official : undefined);
const text = (content: string) => ({ msgtype: 'text', text: { content } });

const aDefinition = (overrides: Record<string, unknown> = {}) => ({
  appId: APP,
  name: 'course drip',
  trigger: { type: 'keyword', keyword: '课程' },
  steps: [{ offsetMs: 0, message: text('welcome') }],
  ...overrides,
});

const refusal = (input: unknown) => definitionRefusal(input, policyOf);

describe('parseSequenceDefinition: exit conditions', () => {
  it('keeps the exit conditions as given, and none when the field is left out', () => {
    const exits = [
      { type: 'message' },
      { type: 'message', keyword: '退订' },
      { type: 'click', key: 'STOP_MENU' },
      { type: 'event', name: 'purchased' },
    ];
    expect(parseSequenceDefinition(aDefinition({ exits }), policyOf).exits).toEqual(exits);
    expect(parseSequenceDefinition(aDefinition(), policyOf).exits).toEqual([]);
  });

  it.each([
    ['an unknown type', [{ type: 'birthday' }], 'exits.0.type'],
    ['an empty keyword', [{ type: 'message', keyword: '' }], 'exits.0.keyword'],
    ['an empty menu key', [{ type: 'click', key: '' }], 'exits.0.key'],
    ['a click without its key', [{ type: 'click' }], 'exits.0.key'],
    ['an empty event name', [{ type: 'event', name: '' }], 'exits.0.name'],
    ['an event name with a space', [{ type: 'event', name: 'bought it' }], 'exits.0.name'],
    ['a field the condition does not have', [{ type: 'event', name: 'x', key: 'y' }], 'exits.0.key'],
    ['exits that are not a list', { type: 'message' }, 'exits'],
  ])('refuses %s, naming the field', (_what, exits, path) => {
    expect(refusal(aDefinition({ exits }))).toEqual([expect.objectContaining({ path })]);
  });

  it('refuses more than 20 conditions', () => {
    const exits = Array.from({ length: 21 }, (_, i) => ({ type: 'event', name: `e${i}` }));
    expect(refusal(aDefinition({ exits }))).toEqual([expect.objectContaining({ path: 'exits' })]);
  });

  it('refuses a condition that repeats an earlier one, keywords compared as they match (ASCII case)', () => {
    const exits = [
      { type: 'message', keyword: 'STOP' },
      { type: 'click', key: 'A' },
      { type: 'message', keyword: 'stop' },
      { type: 'click', key: 'a' },
      { type: 'click', key: 'A' },
    ];
    expect(refusal(aDefinition({ exits }))).toEqual([
      { path: 'exits.2', message: 'repeats exits.0 (exit:message:stop)' },
      { path: 'exits.4', message: 'repeats exits.1 (exit:click:A)' },
    ]);
  });
});

describe('parseSequenceDefinition: the event trigger', () => {
  it('accepts steps past every window without a fallback: an API event opens no window to check', () => {
    const parsed = parseSequenceDefinition(
      aDefinition({
        trigger: { type: 'event', name: 'course_signup' },
        steps: [0, 86_400_000, 3 * 86_400_000, 4 * 86_400_000].map((offsetMs) => ({
          offsetMs,
          message: text('lesson'),
        })),
      }),
      policyOf,
    );
    expect(parsed.trigger).toEqual({ type: 'event', name: 'course_signup' });
    expect(parsed.steps).toHaveLength(4);
  });

  it('refuses an event trigger without a valid name', () => {
    expect(refusal(aDefinition({ trigger: { type: 'event', name: '' } }))).toEqual([
      expect.objectContaining({ path: 'trigger.name' }),
    ]);
  });
});
