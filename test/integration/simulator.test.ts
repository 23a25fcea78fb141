import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import { silentLogger } from '../helpers/logger';
import { aSimTemplate, aTextMessage } from '../helpers/builders';

const ACCOUNT = { appId: 'wxsimtest0001', secret: 'secret-one' };
const OTHER = { appId: 'wxsimtest0002', secret: 'secret-two' };
const START = Date.parse('2026-11-21T10:00:00Z');

interface Answer {
  errcode?: number;
  errmsg?: string;
  access_token?: string;
  expires_in?: number;
  msgid?: number;
}

let sim: Simulator;
let base: string;
let clock: number;

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

const stable = (extra: Record<string, unknown> = {}, account = ACCOUNT) =>
  call('POST', '/cgi-bin/stable_token', {
    grant_type: 'client_credential',
    appid: account.appId,
    secret: account.secret,
    ...extra,
  });
const classic = () =>
  call('GET', `/cgi-bin/token?grant_type=client_credential&appid=${ACCOUNT.appId}&secret=${ACCOUNT.secret}`);
const sendCustom = (token: string, body: unknown) =>
  call('POST', `/cgi-bin/message/custom/send?access_token=${encodeURIComponent(token)}`, body);
const sendTemplate = (token: string, body: unknown) =>
  call('POST', `/cgi-bin/message/template/send?access_token=${encodeURIComponent(token)}`, body);
const text = (openid = 'oFollower1', content = 'hello') => ({
  touser: openid,
  msgtype: 'text',
  text: { content },
});
const freshToken = async (account = ACCOUNT) =>
  (await stable({ force_refresh: true }, account)).access_token!;

beforeAll(async () => {
  clock = START;
  // These tests are about tokens and payloads, not followers: window checks are covered elsewhere.
  sim = createSimulator({
    accounts: [ACCOUNT, OTHER],
    logger: silentLogger,
    now: () => clock,
    enforceContactWindow: false,
  });
  base = (await sim.listen(0)).url;
  for (const { appId } of [ACCOUNT, OTHER]) {
    sim.registerTemplates(appId, [aSimTemplate('TEMPLATE_ID', '商品：{{keyword1.DATA}}\n{{remark.DATA}}')]);
  }
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.resetMessages();
  sim.clearFaults();
});

describe('simulator: access tokens', () => {
  it('stable_token in normal mode answers the same token while it has more than 5 minutes left', async () => {
    const first = await freshToken();
    clock += 60_000;
    const again = await stable();
    expect(again).toEqual({ access_token: first, expires_in: 7200 - 60 });
  });

  it('rotates a stable token in its last 5 minutes and keeps the old one valid until its own expiry', async () => {
    const old = await freshToken();
    clock += 7200_000 - 299_000;
    const rotated = await stable();
    expect(rotated.access_token).not.toBe(old);
    expect(rotated.expires_in).toBe(7200);
    expect((await sendCustom(old, text())).errcode).toBe(0);
    clock += 299_000;
    expect(await sendCustom(old, text())).toEqual({ errcode: 42001, errmsg: 'access_token expired' });
    expect((await sendCustom(rotated.access_token!, text())).errcode).toBe(0);
  });

  it('force_refresh issues a new stable token and invalidates the previous one', async () => {
    const old = await freshToken();
    const forced = await freshToken();
    expect(forced).not.toBe(old);
    expect((await sendCustom(old, text())).errcode).toBe(40001);
    expect((await sendCustom(forced, text())).errcode).toBe(0);
  });

  it('answers 40013, 40125, 40002, 41002 and 47001 for a bad stable_token request', async () => {
    expect(await stable({ appid: 'wxnobody' })).toEqual({ errcode: 40013, errmsg: 'invalid appid' });
    expect(await stable({ secret: 'wrong' })).toEqual({ errcode: 40125, errmsg: 'invalid appsecret' });
    expect(await stable({ grant_type: 'password' })).toEqual({
      errcode: 40002,
      errmsg: 'invalid grant_type',
    });
    expect(await stable({ appid: undefined })).toEqual({ errcode: 41002, errmsg: 'appid missing' });
    expect((await call('POST', '/cgi-bin/stable_token', '{nope')).errcode).toBe(47001);
    expect((await call('GET', '/cgi-bin/stable_token')).errcode).toBe(43002);
  });

  it('classic /cgi-bin/token issues a new token per call and cuts the previous one to 5 more minutes', async () => {
    const first = (await classic()).access_token!;
    const second = (await classic()).access_token!;
    expect(second).not.toBe(first);
    clock += 299_000;
    expect((await sendCustom(first, text())).errcode).toBe(0);
    clock += 1_000;
    expect((await sendCustom(first, text())).errcode).toBe(42001);
    expect((await sendCustom(second, text())).errcode).toBe(0);
  });

  it('answers 41001 without a token and 40001 for a token it never issued', async () => {
    expect(await call('POST', '/cgi-bin/message/custom/send', text())).toEqual({
      errcode: 41001,
      errmsg: 'access_token missing',
    });
    expect(await sendCustom('made-up', text())).toEqual({
      errcode: 40001,
      errmsg: 'invalid credential, access_token is invalid or not latest',
    });
  });

  it('invalidation makes every current token of the account answer 40001 until a new one is fetched', async () => {
    const token = await freshToken();
    const other = await freshToken(OTHER);
    const res = await fetch(`${base}/__sim/tokens/invalidate`, {
      method: 'POST',
      body: JSON.stringify({ appId: ACCOUNT.appId }),
    });
    expect(await res.json()).toEqual({ invalidated: expect.any(Number) as number });
    expect((await sendCustom(token, text())).errcode).toBe(40001);
    expect((await sendCustom(other, text())).errcode).toBe(0);
    const renewed = (await stable()).access_token!;
    expect(renewed).not.toBe(token);
    expect((await sendCustom(renewed, text())).errcode).toBe(0);
  });
});

/** One valid body per msgtype (reference/wechat.md §1.1). */
const EVERY_MSGTYPE: Record<string, Record<string, unknown>> = {
  text: { content: 'hi' },
  image: { media_id: 'M' },
  voice: { media_id: 'M' },
  video: { media_id: 'M', thumb_media_id: 'T' },
  music: { musicurl: 'http://e.com/a.mp3', hqmusicurl: 'http://e.com/b.mp3', thumb_media_id: 'T' },
  news: { articles: [{ title: 't', url: 'https://e.com' }] },
  mpnews: { media_id: 'M' },
  mpnewsarticle: { article_id: 'A' },
  msgmenu: { list: [{ id: '1', content: 'yes' }] },
  wxcard: { card_id: 'C' },
  miniprogrampage: { appid: 'wxmini', pagepath: 'pages/index', thumb_media_id: 'T' },
};

const ARTICLE = { title: 't', url: 'https://e.com' };

describe('simulator: customer-service sends', () => {
  it.each(Object.keys(EVERY_MSGTYPE))('accepts and records msgtype %s', async (msgtype) => {
    const token = await freshToken();
    const body = { touser: 'oEvery', msgtype, [msgtype]: EVERY_MSGTYPE[msgtype] };
    expect(await sendCustom(token, body)).toEqual({ errcode: 0, errmsg: 'ok' });
    expect(sim.messages()).toEqual([
      {
        seq: expect.any(Number) as number,
        appId: ACCOUNT.appId,
        openid: 'oEvery',
        channel: 'custom',
        msgtype,
        body,
        receivedAt: clock,
      },
    ]);
  });

  it.each(Object.keys(EVERY_MSGTYPE))(
    'answers 47001 when the %s payload lacks a required field',
    async (msgtype) => {
      const token = await freshToken();
      const payload = { ...EVERY_MSGTYPE[msgtype] };
      delete payload[Object.keys(payload)[0]];
      expect((await sendCustom(token, { touser: 'o1', msgtype, [msgtype]: payload })).errcode).toBe(47001);
    },
  );

  it.each([
    ['invalid JSON', 47001, '{"touser":'],
    ['a missing touser', 40003, aTextMessage('hi')],
    ['an empty touser', 40003, { ...text(''), touser: '' }],
    ['an unknown msgtype', 40008, { touser: 'o1', msgtype: 'link', link: {} }],
    ['a msgtype without its payload object', 47001, { touser: 'o1', msgtype: 'image' }],
    [
      'news with two articles',
      45008,
      { touser: 'o1', msgtype: 'news', news: { articles: [ARTICLE, ARTICLE] } },
    ],
    ['text over 2048 bytes', 45002, text('o1', '文'.repeat(683))],
    ['empty text', 44004, text('o1', '')],
    ['a customservice without kf_account', 47001, { ...text(), customservice: {} }],
  ])('rejects %s with errcode %i and records nothing', async (_what, errcode, body) => {
    const token = await freshToken();
    expect((await sendCustom(token, body)).errcode).toBe(errcode);
    expect(sim.messages()).toEqual([]);
  });

  it('accepts text of exactly 2048 bytes and a kf_account', async () => {
    const token = await freshToken();
    const body = { ...text('o1', '文'.repeat(682) + 'ab'), customservice: { kf_account: 'kf1@account' } };
    expect((await sendCustom(token, body)).errcode).toBe(0);
  });

  it('answers 43002 to a GET on a send endpoint', async () => {
    expect((await call('GET', '/cgi-bin/message/custom/send?access_token=x')).errcode).toBe(43002);
  });
});

describe('simulator: template sends', () => {
  const template = (extra: Record<string, unknown> = {}) => ({
    touser: 'oTpl',
    template_id: 'TEMPLATE_ID',
    data: { keyword1: { value: '巧克力' } },
    ...extra,
  });

  it('accepts a template message, answers a msgid and records it on the template channel', async () => {
    const answer = await sendTemplate(await freshToken(), template({ url: 'http://weixin.qq.com' }));
    expect(answer).toEqual({ errcode: 0, errmsg: 'ok', msgid: expect.any(Number) as number });
    expect(sim.messages()).toEqual([expect.objectContaining({ channel: 'template', msgtype: 'template' })]);
  });

  it.each([
    ['a missing template_id', { template_id: undefined }],
    ['an empty template_id', { template_id: '' }],
    ['a template_id the account does not hold', { template_id: 'TEMPLATE_ID_TYPO' }],
  ])('answers 40037 invalid template_id for %s, and records nothing', async (_what, extra) => {
    const answer = await sendTemplate(await freshToken(), template(extra));
    expect(answer).toEqual({ errcode: 40037, errmsg: 'invalid template_id' });
    expect(sim.messages()).toEqual([]);
  });

  it('answers 40037 for a template of another account', async () => {
    sim.registerTemplates(OTHER.appId, [aSimTemplate('OTHER_ONLY')]);
    const answer = await sendTemplate(await freshToken(), template({ template_id: 'OTHER_ONLY' }));
    expect(answer.errcode).toBe(40037);
    sim.registerTemplates(OTHER.appId, [aSimTemplate('TEMPLATE_ID')]);
  });

  it('answers 47003 naming a field over its limit (20 characters; a thing 20, a phrase 5)', async () => {
    const token = await freshToken();
    const long = await sendTemplate(token, template({ data: { keyword1: { value: 'x'.repeat(21) } } }));
    expect(long).toEqual({ errcode: 47003, errmsg: 'argument invalid! data.keyword1.value invalid' });
    expect(
      (await sendTemplate(token, template({ data: { keyword1: { value: 'x'.repeat(20) } } }))).errcode,
    ).toBe(0);
    // first and remark are no longer shown, so WeChat does not hold them to the limit.
    const remark = { keyword1: { value: 'ok' }, remark: { value: 'y'.repeat(40) } };
    expect((await sendTemplate(token, template({ data: remark }))).errcode).toBe(0);
  });

  it('records what the follower sees: no first, remark, colours or emoji, line breaks made spaces', async () => {
    sim.registerTemplates(ACCOUNT.appId, [
      aSimTemplate(
        'TEMPLATE_ID',
        '{{first.DATA}}\n课程：{{thing1.DATA}}\n时间：{{time2.DATA}}\n{{remark.DATA}}',
      ),
    ]);
    const data = {
      first: { value: '您好' },
      thing1: { value: '春季🌸瑜伽\n进阶', color: '#FF0000' },
      time2: { value: '19:00' },
      remark: { value: '不见不散' },
      unknown9: { value: 'ignored' },
    };
    expect((await sendTemplate(await freshToken(), template({ data }))).errcode).toBe(0);
    expect(sim.messages()[0].shown).toEqual({
      title: 'test template',
      fields: [
        { key: 'thing1', label: '课程', value: '春季瑜伽 进阶' },
        { key: 'time2', label: '时间', value: '19:00' },
      ],
    });
    sim.registerTemplates(ACCOUNT.appId, [
      aSimTemplate('TEMPLATE_ID', '商品：{{keyword1.DATA}}\n{{remark.DATA}}'),
    ]);
  });

  it('lists the account’s templates at template/get_all_private_template, as WeChat shapes them', async () => {
    const list = await call(
      'GET',
      `/cgi-bin/template/get_all_private_template?access_token=${encodeURIComponent(await freshToken())}`,
    );
    expect(list).toEqual({
      template_list: [
        {
          template_id: 'TEMPLATE_ID',
          title: 'test template',
          primary_industry: '',
          deputy_industry: '',
          content: '商品：{{keyword1.DATA}}\n{{remark.DATA}}',
          example: '',
        },
      ],
    });
    expect((await call('GET', '/cgi-bin/template/get_all_private_template?access_token=nope')).errcode).toBe(
      40001,
    );
  });

  it.each([
    ['missing data', { data: undefined }],
    ['a data field without a string value', { data: { k: { value: 3 } } }],
    ['a miniprogram without appid', { miniprogram: { pagepath: 'p' } }],
  ])('answers 47003 for %s', async (_what, extra) => {
    const answer = await sendTemplate(await freshToken(), template(extra));
    expect(answer.errcode).toBe(47003);
    expect(answer.errmsg).toMatch(/^argument invalid!/);
    expect(sim.messages()).toEqual([]);
  });

  it('treats a repeated client_msg_id for the same openid within 10 minutes as the same message', async () => {
    const token = await freshToken();
    const first = await sendTemplate(token, template({ client_msg_id: 'order-42' }));
    clock += 9 * 60_000;
    expect(await sendTemplate(token, template({ client_msg_id: 'order-42' }))).toEqual(first);
    expect(
      (await sendTemplate(token, template({ client_msg_id: 'order-42', touser: 'oOther' }))).errcode,
    ).toBe(0);
    expect(sim.messages().map((m) => m.openid)).toEqual(['oTpl', 'oOther']);
    expect(sim.stats().deduplicated).toBe(1);
    clock += 60_000;
    const later = await sendTemplate(token, template({ client_msg_id: 'order-42' }));
    expect(later.msgid).not.toBe(first.msgid);
    expect(sim.messages()).toHaveLength(3);
  });

  it('keeps the client_msg_ids of different accounts apart', async () => {
    const before = sim.stats().deduplicated;
    await sendTemplate(await freshToken(), template({ client_msg_id: 'order-44' }));
    const other = await sendTemplate(await freshToken(OTHER), template({ client_msg_id: 'order-44' }));
    expect(other.errcode).toBe(0);
    expect(sim.messages().map((m) => m.appId)).toEqual([ACCOUNT.appId, OTHER.appId]);
    expect(sim.stats().deduplicated).toBe(before);
  });

  it('does not remember the client_msg_id of a send it failed, so the retry is delivered', async () => {
    const token = await freshToken();
    const before = sim.stats().deduplicated;
    sim.setFaults({ errorRate: 1, errcode: -1 });
    expect((await sendTemplate(token, template({ client_msg_id: 'order-45' }))).errcode).toBe(-1);
    sim.clearFaults();
    expect((await sendTemplate(token, template({ client_msg_id: 'order-45' }))).errcode).toBe(0);
    expect(sim.messages()).toHaveLength(1);
    expect(sim.stats().deduplicated).toBe(before);
  });

  it('forgets client_msg_ids when its messages are reset', async () => {
    const token = await freshToken();
    await sendTemplate(token, template({ client_msg_id: 'order-43' }));
    sim.resetMessages();
    await sendTemplate(token, template({ client_msg_id: 'order-43' }));
    expect(sim.messages()).toHaveLength(1);
  });
});
