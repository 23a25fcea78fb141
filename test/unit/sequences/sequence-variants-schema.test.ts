import { parseSequenceDefinition } from '../../../src/sequences/sequence-schema';
import { WINDOW_PRESETS } from '../../../src/wechat/window-policy';
import { definitionRefusal } from '../../helpers/definition-refusal';

const APP = 'wx0123456789abcdef';
const policyOf = (appId: string) => (appId === APP ? WINDOW_PRESETS.official : undefined);
const text = (content: string) => ({ msgtype: 'text', text: { content } });
const variant = (name: string, fields: Record<string, unknown> = {}) => ({
  name,
  weight: 1,
  message: text(`${name} {{name|同学}}`),
  ...fields,
});

const aDefinition = (step: Record<string, unknown>) => ({
  appId: APP,
  name: 'course drip',
  trigger: { type: 'keyword', keyword: '课程' },
  steps: [{ offsetMs: 0, ...step }],
});

const refusal = (input: unknown) => definitionRefusal(input, policyOf);

describe('parseSequenceDefinition: A/B steps', () => {
  it('keeps a step’s variants, with their weights and fallbacks, and no message', () => {
    const fallback = { template_id: 'tpl', data: { first: { value: 'hi' } } };
    const parsed = parseSequenceDefinition(
      aDefinition({ variants: [variant('A', { weight: 3, fallback }), variant('B')] }),
      policyOf,
    );
    expect(parsed.steps).toEqual([
      {
        offsetMs: 0,
        variants: [
          { name: 'A', weight: 3, message: text('A {{name|同学}}'), fallback },
          { name: 'B', weight: 1, message: text('B {{name|同学}}'), fallback: null },
        ],
      },
    ]);
  });

  it.each([
    ['one variant', { variants: [variant('A')] }, 'steps.0.variants'],
    ['six variants', { variants: ['A', 'B', 'C', 'D', 'E', 'F'].map((n) => variant(n)) }, 'steps.0.variants'],
    ['a zero weight', { variants: [variant('A', { weight: 0 }), variant('B')] }, 'steps.0.variants.0.weight'],
    [
      'a fractional weight',
      { variants: [variant('A', { weight: 1.5 }), variant('B')] },
      'steps.0.variants.0.weight',
    ],
    ['an empty name', { variants: [variant(''), variant('B')] }, 'steps.0.variants.0.name'],
    ['a 33-character name', { variants: [variant('x'.repeat(33)), variant('B')] }, 'steps.0.variants.0.name'],
    ['a repeated name', { variants: [variant('A'), variant('A')] }, 'steps.0.variants.1.name'],
    [
      'a message beside variants',
      { message: text('x'), variants: [variant('A'), variant('B')] },
      'steps.0.variants',
    ],
    ['neither message nor variants', {}, 'steps.0.message'],
    [
      'a variant’s bad message',
      { variants: [variant('A'), variant('B', { message: { msgtype: 'fax' } })] },
      'steps.0.variants.1.message.msgtype',
    ],
    [
      'a variant’s variable without default',
      { variants: [variant('A'), variant('B', { message: text('{{course}}') })] },
      'steps.0.variants.1.message',
    ],
  ])('refuses %s, naming the field', (_what, step, path) => {
    expect(refusal(aDefinition(step))).toEqual([expect.objectContaining({ path })]);
  });

  it('checks each variant against the contact window, as for a step', () => {
    const late = {
      offsetMs: 120_000,
      variants: [
        variant('A'),
        variant('B', { fallback: { template_id: 'tpl', data: { first: { value: 'hi' } } } }),
      ],
    };
    const details = refusal({ ...aDefinition({}), trigger: { type: 'subscribe' }, steps: [late] });
    expect(details).toEqual([
      { path: 'steps.0.variants.0', message: expect.stringContaining('falls outside the contact window') },
    ]);
  });
});
