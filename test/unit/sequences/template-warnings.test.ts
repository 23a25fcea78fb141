import { parseSequenceDefinition } from '../../../src/sequences/sequence-schema';
import { templateRuleWarnings, unknownTemplateWarnings } from '../../../src/sequences/template-warnings';
import type { TemplateLibrary, TemplateLibraryAnswer } from '../../../src/wechat/template-library';
import { WINDOW_PRESETS } from '../../../src/wechat/window-policy';

const APP = 'wx0123456789abcdef';
const text = { msgtype: 'text', text: { content: 'hi' } };
const template = (templateId: string, data: Record<string, unknown> = { thing1: { value: 'ok' } }) => ({
  template_id: templateId,
  data,
});

const definition = (steps: unknown[]) =>
  parseSequenceDefinition(
    { appId: APP, name: 'welcome', trigger: { type: 'subscribe' }, steps },
    () => WINDOW_PRESETS.official,
  );

/** A library that answers `answer` and remembers what it was asked. */
function aLibrary(answer: TemplateLibraryAnswer): TemplateLibrary & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    templates: (appId, expect) => {
      asked.push({ appId, expect });
      return Promise.resolve(answer);
    },
  };
}
const holding = (...ids: string[]): TemplateLibraryAnswer => ({
  ok: true,
  templates: ids.map((templateId) => ({
    templateId,
    title: 't',
    content: '{{thing1.DATA}}',
    fields: [{ key: 'thing1', label: '' }],
  })),
  fetchedAt: new Date(),
});

describe('templateRuleWarnings', () => {
  it('warns at each field of a template fallback, variants included, and never at a notice', () => {
    const d = definition([
      {
        offsetMs: 0,
        message: text,
        fallback: template('T1', { first: { value: 'hi' }, thing1: { value: 'x'.repeat(21) } }),
      },
      {
        offsetMs: 60_000,
        variants: [
          {
            name: 'A',
            weight: 1,
            message: text,
            fallback: template('T1', { thing1: { value: 'ok', color: '#FF0000' } }),
          },
          {
            name: 'B',
            weight: 1,
            message: text,
            fallback: { channel: 'notice', ...template('N', { thing1: { value: 'a\nb' } }) },
          },
        ],
      },
    ]);
    const warnings = templateRuleWarnings(d);
    expect(warnings.map((w) => w.path)).toEqual([
      'steps.0.fallback.data.first.value',
      'steps.0.fallback.data.thing1.value',
      'steps.1.variants.0.fallback.data.thing1.color',
    ]);
    expect(warnings[0].message).toContain('WeChat no longer shows “first”');
    expect(warnings[1].message).toContain('21 characters: a template field holds at most 20');
  });
});

describe('unknownTemplateWarnings', () => {
  const d = definition([
    { offsetMs: 0, message: text, fallback: template('TPL_OK') },
    { offsetMs: 60_000, message: text, fallback: template('TPL_TYPO') },
  ]);

  it('warns at the template_id of each fallback whose template the account’s library lacks', async () => {
    const library = aLibrary(holding('TPL_OK', 'TPL_OTHER'));
    const warnings = await unknownTemplateWarnings(d, library);
    expect(warnings).toEqual([
      {
        path: 'steps.1.fallback.template_id',
        message: expect.stringContaining('has no template TPL_TYPO') as string,
        rule: { kind: 'unknown_template', templateId: 'TPL_TYPO', known: ['TPL_OK', 'TPL_OTHER'] },
      },
    ]);
    expect(warnings[0].message).toContain('40037');
    expect(library.asked).toEqual([{ appId: APP, expect: ['TPL_OK', 'TPL_TYPO'] }]);
  });

  it('when WeChat’s list cannot be had, one warning says the ids could not be checked', async () => {
    const warnings = await unknownTemplateWarnings(
      d,
      aLibrary({ ok: false, reason: 'errcode 48001 api unauthorized' }),
    );
    expect(warnings).toEqual([
      {
        path: 'steps.0.fallback.template_id',
        message: expect.stringContaining('could not be checked') as string,
        rule: { kind: 'templates_unavailable', reason: 'errcode 48001 api unauthorized' },
      },
    ]);
    expect(warnings[0].message).toContain('48001');
  });

  it('asks nothing of WeChat for a sequence without template fallbacks', async () => {
    const library = aLibrary(holding());
    expect(await unknownTemplateWarnings(definition([{ offsetMs: 0, message: text }]), library)).toEqual([]);
    expect(library.asked).toEqual([]);
  });
});
