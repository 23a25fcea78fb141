import {
  shownTemplateFields,
  templateRuleIssues,
  TEMPLATE_FIELD_MAX_CHARS,
} from '../../../src/policy/template-rules';

describe('templateRuleIssues (WeChat’s template rules since 2023-05-04)', () => {
  it.each([
    ['a field within the rules', { thing1: { value: '春季瑜伽' } }, []],
    ['first', { first: { value: '您好' } }, [{ kind: 'dropped_field', key: 'first' }]],
    ['remark', { remark: { value: '不见不散' } }, [{ kind: 'dropped_field', key: 'remark' }]],
    ['a colour', { thing1: { value: 'a', color: '#FF0000' } }, [{ kind: 'colour', key: 'thing1' }]],
    ['an emoji', { thing1: { value: '瑜伽🧘‍♀️' } }, [{ kind: 'emoji', key: 'thing1' }]],
    [
      '21 characters',
      { thing1: { value: '课'.repeat(21) } },
      [{ kind: 'too_long', key: 'thing1', chars: 21 }],
    ],
    ['a line break', { keyword1: { value: 'a\nb' } }, [{ kind: 'line_break', key: 'keyword1' }]],
  ])('%s', (_what, data, issues) => {
    expect(templateRuleIssues(data)).toEqual(issues);
  });

  it('counts characters, not bytes or UTF-16 units: 20 Chinese characters fit, emoji do not count once dropped', () => {
    expect(TEMPLATE_FIELD_MAX_CHARS).toBe(20);
    expect(templateRuleIssues({ thing1: { value: '课'.repeat(20) } })).toEqual([]);
    expect(templateRuleIssues({ thing1: { value: `${'课'.repeat(20)}😀` } })).toEqual([
      { kind: 'emoji', key: 'thing1' },
    ]);
  });

  it('lists every rule a field breaks, field by field in the message’s order', () => {
    const data = { first: { value: 'x' }, thing1: { value: `${'a'.repeat(25)}\n🎉`, color: '#173177' } };
    expect(templateRuleIssues(data).map((i) => `${i.key}:${i.kind}`)).toEqual([
      'first:dropped_field',
      'thing1:colour',
      'thing1:emoji',
      'thing1:too_long',
      'thing1:line_break',
    ]);
  });
});

describe('shownTemplateFields (what the follower sees)', () => {
  it('drops first and remark, strips emoji and marks a field too long or with a line break', () => {
    const shown = shownTemplateFields({
      first: { value: '您好' },
      thing1: { value: '春季🌸瑜伽' },
      thing2: { value: 'x'.repeat(21) },
      time3: { value: '19:00\n20:00' },
      remark: { value: '不见不散' },
    });
    expect(shown).toEqual([
      { key: 'thing1', value: '春季瑜伽', tooLong: false, lineBreak: false },
      { key: 'thing2', value: 'x'.repeat(21), tooLong: true, lineBreak: false },
      { key: 'time3', value: '19:00\n20:00', tooLong: false, lineBreak: true },
    ]);
  });
});
