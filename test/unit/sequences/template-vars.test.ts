import { placeholdersOf, renderVars, urlVariableIssues } from '../../../src/sequences/template-vars';

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

  describe('in an address', () => {
    const hostile = { path: '@evil.example/phish', q: 'x&admin=1#top', host: '.evil.example' };
    const render = (payload: unknown, asText = false) => renderVars(payload, hostile, { asText }).rendered;

    it('percent-encodes a value in every URL field: the link keeps its origin, the value adds no parameter', () => {
      const news = render({
        news: {
          articles: [
            { url: 'https://shop.example/{{path}}?q={{q}}', picurl: 'https://img.example/{{path}}' },
          ],
        },
      }) as { news: { articles: { url: string; picurl: string }[] } };
      const [article] = news.news.articles;
      expect(article.url).toBe('https://shop.example/%40evil.example%2Fphish?q=x%26admin%3D1%23top');
      expect(new URL(article.url).origin).toBe('https://shop.example');
      expect(new URL(article.picurl).origin).toBe('https://img.example');
      expect(
        render({
          url: 'https://a.example/{{q}}',
          miniprogram: { appid: 'wx1', pagepath: 'pages/i?id={{q}}' },
        }),
      ).toEqual({
        url: 'https://a.example/x%26admin%3D1%23top',
        miniprogram: { appid: 'wx1', pagepath: 'pages/i?id=x%26admin%3D1%23top' },
      });
      expect(render({ page: 'https://a.example/?p={{path}}' })).toEqual({
        page: 'https://a.example/?p=%40evil.example%2Fphish',
      });
    });

    it('leaves the values out of an address whose origin they would change (a variable inside the host)', () => {
      expect(render({ url: 'https://shop.example{{host}}/x' })).toEqual({ url: 'https://shop.example/x' });
      expect(render({ url: 'https://shop.example{{path}}' })).toEqual({ url: 'https://shop.example' });
    });

    it('encodes a value in a text link’s href, and the text around it as text', () => {
      const text = render(
        { text: { content: '<a href="https://shop.example/{{path}}">{{path}}</a>' } },
        true,
      );
      expect(text).toEqual({
        text: { content: '<a href="https://shop.example/%40evil.example%2Fphish">@evil.example/phish</a>' },
      });
    });

    it('names, at save time, each address with a variable before its origin is written out', () => {
      const step = {
        news: { articles: [{ url: 'https://shop.example{{path}}', picurl: 'https://img.example/{{p}}' }] },
      };
      expect(urlVariableIssues(step, 'steps.0.message').map((i) => i.path)).toEqual([
        'steps.0.message.news.articles.0.url',
      ]);
      expect(urlVariableIssues({ url: '{{link}}' }, 'f').map((i) => i.path)).toEqual(['f.url']);
      expect(urlVariableIssues({ text: { content: '<a href="{{link}}">go</a>' } }, 'm')).toHaveLength(1);
      expect(
        urlVariableIssues({ url: 'https://a.example:8443/{{x}}', page: 'https://a.example?{{x}}' }, 'f'),
      ).toEqual([]);
    });
  });
});
