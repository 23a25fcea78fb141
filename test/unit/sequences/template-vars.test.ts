import { placeholdersOf, renderVars } from '../../../src/sequences/template-vars';

describe('template variables', () => {
  it('finds every variable in a payload’s strings, and whether each has a default everywhere', () => {
    const payload = {
      msgtype: 'text',
      text: { content: '{{ name }}，{{course|春季班}} 开课，{{course}} 见' },
      data: [{ value: '{{teacher|李老师}}' }],
    };
    expect(placeholdersOf(payload)).toEqual([
      { name: 'name', hasDefault: false },
      { name: 'course', hasDefault: false },
      { name: 'teacher', hasDefault: true },
    ]);
  });

  it('fills values, else defaults, and names what has neither (left as written)', () => {
    const { rendered, missing } = renderVars(
      { text: { content: '{{name}}您好，{{course|春季班}} 由 {{teacher}} 授课' } },
      { name: '王同学' },
      { asText: true },
    );
    expect(rendered).toEqual({ text: { content: '王同学您好，春季班 由 {{teacher}} 授课' } });
    expect(missing).toEqual(['teacher']);
  });

  it('inserts a value as text: never JSON structure, never WeChat markup in a customer-service message', () => {
    const hostile = '"}, "touser": "x", "a": {"<a href="https://evil.example">点我</a>';
    const text = renderVars({ text: { content: 'Hi {{name}}' } }, { name: hostile }, { asText: true });
    expect(text.rendered.text.content).toBe(`Hi ${hostile.replace(/</g, '＜').replace(/>/g, '＞')}`);
    expect(Object.keys(text.rendered)).toEqual(['text']);
    const data = renderVars({ data: { first: { value: '{{name}}' } } }, { name: '<b>' }, { asText: false });
    expect(data.rendered).toEqual({ data: { first: { value: '<b>' } } });
  });

  it('does not treat a key as a template, nor a value’s own braces as a variable', () => {
    const { rendered } = renderVars({ '{{name}}': '{{name}}' }, { name: '{{other}}' }, { asText: true });
    expect(rendered).toEqual({ '{{name}}': '{{other}}' });
  });

  it('reads a variable name only as a letter or _ then letters, digits or _', () => {
    expect(placeholdersOf('{{1abc}} {{a-b}} {{ok_1}}')).toEqual([{ name: 'ok_1', hasDefault: false }]);
  });

  it('uses an own value only, not one from the object prototype', () => {
    expect(renderVars('{{constructor}}', {}, { asText: true }).missing).toEqual(['constructor']);
  });
});
