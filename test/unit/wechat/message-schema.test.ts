import { ValidationError } from '../../../src/errors';
import {
  MSGTYPES,
  parseCustomMessage,
  parseNoticeMessage,
  parseStepFallback,
  parseTemplateMessage,
  splitFallback,
} from '../../../src/wechat/message-schema';

/** One valid payload per msgtype: the official examples of reference/wechat.md §1.1, without touser. */
const VALID: Record<(typeof MSGTYPES)[number], Record<string, unknown>> = {
  text: { msgtype: 'text', text: { content: '文本内容<a href="http://www.qq.com">点击</a>' } },
  image: { msgtype: 'image', image: { media_id: 'MEDIA_ID' } },
  voice: { msgtype: 'voice', voice: { media_id: 'MEDIA_ID' } },
  video: {
    msgtype: 'video',
    video: { media_id: 'MEDIA_ID', thumb_media_id: 'THUMB', title: 'TITLE', description: 'DESCRIPTION' },
  },
  music: {
    msgtype: 'music',
    music: {
      title: 'MUSIC_TITLE',
      description: 'MUSIC_DESCRIPTION',
      musicurl: 'http://example.com/a.mp3',
      hqmusicurl: 'https://example.com/a-hq.mp3',
      thumb_media_id: 'THUMB_MEDIA_ID',
    },
  },
  news: {
    msgtype: 'news',
    news: {
      articles: [
        {
          title: 'Happy Day',
          description: 'Is Really A Happy Day',
          url: 'https://e.com/a',
          picurl: 'https://e.com/p.png',
        },
      ],
    },
  },
  mpnews: { msgtype: 'mpnews', mpnews: { media_id: 'MEDIA_ID' } },
  mpnewsarticle: { msgtype: 'mpnewsarticle', mpnewsarticle: { article_id: 'ARTICLE_ID' } },
  msgmenu: {
    msgtype: 'msgmenu',
    msgmenu: {
      head_content: '您对本次服务是否满意呢? ',
      list: [
        { id: '101', content: '满意' },
        { id: '102', content: '不满意' },
      ],
      tail_content: '欢迎再次光临',
    },
  },
  wxcard: { msgtype: 'wxcard', wxcard: { card_id: '123dsdajkasd231jhksad' } },
  miniprogrampage: {
    msgtype: 'miniprogrampage',
    miniprogrampage: { title: 'title', appid: 'wxmini', pagepath: 'pages/index', thumb_media_id: 'THUMB' },
  },
};

/** The details of the ValidationError that `fn` throws. */
function problems(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('validation_error');
    // The words people read (each detail's rule is checked in test/unit/validation.test.ts).
    return ((err as ValidationError).details as { path: string; message: string }[]).map(
      ({ path, message }) => ({
        path,
        message,
      }),
    );
  }
  throw new Error('expected a ValidationError');
}

const custom = (input: unknown) => problems(() => parseCustomMessage(input));
const paths = (details: { path: string }[]) => details.map((d) => d.path);

describe('parseCustomMessage', () => {
  it.each(MSGTYPES)('accepts the official %s example unchanged', (msgtype) => {
    expect(parseCustomMessage(VALID[msgtype])).toEqual(VALID[msgtype]);
  });

  it('accepts a kf_account on any msgtype', () => {
    const message = { ...VALID.image, customservice: { kf_account: 'test1@kftest' } };
    expect(parseCustomMessage(message)).toEqual(message);
  });

  it('refuses touser, because the recipient is the request’s openid', () => {
    expect(custom({ ...VALID.text, touser: 'OPENID' })).toEqual([
      {
        path: 'message.touser',
        message: expect.stringContaining('the recipient is the request’s openid') as string,
      },
    ]);
  });

  it('names each unknown field at its own path', () => {
    const input = { ...VALID.text, text: { content: 'hi', colour: 'red' }, extra: 1 };
    expect(custom(input)).toEqual([
      { path: 'message.text.colour', message: 'is not a known field' },
      { path: 'message.extra', message: 'is not a known field' },
    ]);
  });

  it('refuses a payload object that belongs to another msgtype', () => {
    expect(paths(custom({ msgtype: 'text', image: { media_id: 'M' } }))).toEqual([
      'message.text',
      'message.image',
    ]);
  });

  it('lists the msgtypes when msgtype is unknown or missing', () => {
    expect(custom({ msgtype: 'link', link: {} })).toEqual([
      { path: 'message.msgtype', message: `must be one of ${MSGTYPES.join(', ')}` },
    ]);
    expect(custom({ text: { content: 'hi' } })[0].message).toMatch(/^is required, one of text, image/);
  });

  it('refuses input that is not an object', () => {
    expect(custom('hello')).toEqual([{ path: 'message', message: 'must be an object' }]);
  });

  it('says which required field is missing', () => {
    expect(custom({ msgtype: 'video', video: { media_id: 'M' } })).toEqual([
      { path: 'message.video.thumb_media_id', message: 'is required' },
    ]);
  });

  it('refuses empty media ids', () => {
    expect(custom({ msgtype: 'image', image: { media_id: '' } })).toEqual([
      { path: 'message.image.media_id', message: 'must not be empty' },
    ]);
  });

  it('accepts text of exactly 2048 UTF-8 bytes and refuses one byte more', () => {
    const exact = '文'.repeat(682) + 'ab'; // 682 × 3 bytes + 2
    expect(parseCustomMessage({ msgtype: 'text', text: { content: exact } })).toBeTruthy();
    expect(custom({ msgtype: 'text', text: { content: `${exact}c` } })).toEqual([
      { path: 'message.text.content', message: 'must be at most 2048 bytes of UTF-8' },
    ]);
  });

  it('refuses empty text', () => {
    expect(paths(custom({ msgtype: 'text', text: { content: '' } }))).toEqual(['message.text.content']);
  });

  it('needs exactly one news article', () => {
    const article = (VALID.news.news as { articles: unknown[] }).articles[0];
    expect(custom({ msgtype: 'news', news: { articles: [] } })).toEqual([
      { path: 'message.news.articles', message: 'must hold exactly 1 article' },
    ]);
    expect(paths(custom({ msgtype: 'news', news: { articles: [article, article] } }))).toEqual([
      'message.news.articles',
    ]);
  });

  it('needs http(s) URLs in news and music', () => {
    const news = { msgtype: 'news', news: { articles: [{ title: 't', url: 'javascript:alert(1)' }] } };
    expect(custom(news)).toEqual([
      { path: 'message.news.articles.0.url', message: 'must be an http(s) URL' },
    ]);
    const music = {
      msgtype: 'music',
      music: { ...(VALID.music.music as object), hqmusicurl: 'ftp://e.com/a.mp3' },
    };
    expect(paths(custom(music))).toEqual(['message.music.hqmusicurl']);
  });

  it('needs 1 to 10 menu options, each with an id and content', () => {
    const option = (i: number) => ({ id: String(i), content: `option ${i}` });
    const menu = (list: unknown[]) => ({ msgtype: 'msgmenu', msgmenu: { list } });
    expect(parseCustomMessage(menu(Array.from({ length: 10 }, (_, i) => option(i))))).toBeTruthy();
    expect(paths(custom(menu([])))).toEqual(['message.msgmenu.list']);
    expect(paths(custom(menu(Array.from({ length: 11 }, (_, i) => option(i)))))).toEqual([
      'message.msgmenu.list',
    ]);
    expect(custom(menu([{ content: 'yes' }]))).toEqual([
      { path: 'message.msgmenu.list.0.id', message: 'is required' },
    ]);
  });

  it('needs kf_account in the form prefix@account', () => {
    expect(paths(custom({ ...VALID.text, customservice: { kf_account: 'nobody' } }))).toEqual([
      'message.customservice.kf_account',
    ]);
  });

  it('reports every problem at once, under the given path prefix', () => {
    const input = { msgtype: 'miniprogrampage', miniprogrampage: { appid: '', pagepath: 'p' }, touser: 'x' };
    const details = problems(() => parseCustomMessage(input, 'items.3.message'));
    expect(paths(details).sort()).toEqual([
      'items.3.message.miniprogrampage.appid',
      'items.3.message.miniprogrampage.thumb_media_id',
      'items.3.message.touser',
    ]);
    expect(paths(problems(() => parseCustomMessage({ ...VALID.text, x: 1 }, '')))).toEqual(['x']);
  });
});

describe('parseTemplateMessage', () => {
  const template = {
    template_id: 'TEMPLATE_ID',
    url: 'http://weixin.qq.com/download',
    miniprogram: { appid: 'xiaochengxuappid12345', pagepath: 'index?foo=bar' },
    client_msg_id: 'MSG_000001',
    data: { keyword1: { value: '巧克力', color: '#173177' }, keyword2: { value: '39.8元' } },
  };
  const tpl = (input: unknown) => problems(() => parseTemplateMessage(input));

  it('accepts the official example unchanged, and a minimal one', () => {
    expect(parseTemplateMessage(template)).toEqual(template);
    const minimal = { template_id: 'T', data: { k: { value: '' } } };
    expect(parseTemplateMessage(minimal)).toEqual(minimal);
  });

  it('needs template_id and data with at least one field', () => {
    expect(tpl({})).toEqual([
      { path: 'message.template_id', message: 'is required' },
      { path: 'message.data', message: 'is required' },
    ]);
    expect(tpl({ template_id: 'T', data: {} })).toEqual([
      { path: 'message.data', message: 'must hold at least one field' },
    ]);
  });

  it('needs each data field to have a string value and an optional #RRGGBB colour', () => {
    const input = { template_id: 'T', data: { a: { value: 3 }, b: { value: 'x', color: 'red' }, c: 'x' } };
    expect(tpl(input)).toEqual([
      { path: 'message.data.a.value', message: 'must be a string' },
      { path: 'message.data.b.color', message: 'must be a #RRGGBB colour' },
      { path: 'message.data.c', message: 'must be an object' },
    ]);
  });

  it('checks url, miniprogram and client_msg_id', () => {
    const input = { ...template, url: 'weixin.qq.com', miniprogram: { pagepath: 'p' }, client_msg_id: '' };
    expect(paths(tpl(input))).toEqual(['message.url', 'message.miniprogram.appid', 'message.client_msg_id']);
  });

  it('refuses touser and unknown fields', () => {
    expect(tpl({ ...template, touser: 'o', topcolor: '#FF0000' })).toEqual([
      { path: 'message.touser', message: expect.stringContaining('the request’s openid') as string },
      { path: 'message.topcolor', message: 'is not a known field' },
    ]);
  });
});

describe('parseNoticeMessage', () => {
  const notice = {
    template_id: 'NOTICE_ID',
    page: 'https://example.com/detail?id=1',
    miniprogram: { appid: 'wxminiprogram', pagepath: 'index?foo=bar' },
    data: { thing1: { value: '订单已发货' }, time2: { value: '2024-01-01 10:00' } },
  };
  const bad = (input: unknown) => problems(() => parseNoticeMessage(input));

  it('accepts the bizsend example without touser, unchanged', () => {
    expect(parseNoticeMessage(notice)).toEqual(notice);
  });

  it('refuses a thing keyword over 20 characters, a colour, a missing template_id, and touser', () => {
    expect(
      bad({ ...notice, data: { thing1: { value: '一二三四五六七八九十一二三四五六七八九十一' } } }),
    ).toEqual([{ path: 'message.data', message: "a thing keyword's value must be at most 20 characters" }]);
    expect(bad({ template_id: 'N', data: { thing1: { value: 'x', color: '#173177' } } })).toHaveLength(1);
    expect(bad({ data: notice.data })).toEqual([{ path: 'message.template_id', message: 'is required' }]);
    expect(bad({ ...notice, touser: 'o1' })).toHaveLength(1);
  });
});

describe('parseStepFallback and splitFallback', () => {
  const notice = { template_id: 'N', data: { thing1: { value: 'x' } } };

  it('reads a fallback marked "channel": "notice" as a notice and anything else as a template message', () => {
    expect(parseStepFallback({ channel: 'notice', ...notice }, 'steps.0.fallback')).toEqual({
      channel: 'notice',
      ...notice,
    });
    expect(
      parseStepFallback({ template_id: 'T', data: { k: { value: 'v', color: '#000000' } } }, 'f'),
    ).toEqual({
      template_id: 'T',
      data: { k: { value: 'v', color: '#000000' } },
    });
    expect(
      parseStepFallback({ channel: 'template', template_id: 'T', data: { k: { value: 'v' } } }, 'f'),
    ).toEqual({
      template_id: 'T',
      data: { k: { value: 'v' } },
    });
    expect(problems(() => parseStepFallback({ channel: 'custom', ...notice }, 'f'))).toHaveLength(1);
    expect(problems(() => parseStepFallback({ channel: 'notice', template_id: 'N', data: {} }, 'f'))).toEqual(
      [{ path: 'f.data', message: 'must hold at least one field' }],
    );
  });

  it("moves the marker to the message's fallback channel", () => {
    expect(splitFallback({ channel: 'notice', ...notice })).toEqual({
      fallback: notice,
      fallbackChannel: 'notice',
    });
    expect(splitFallback(notice)).toEqual({ fallback: notice, fallbackChannel: 'template' });
  });
});
