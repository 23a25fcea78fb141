import { AppError } from '../../../src/errors';
import { extractEncrypt, parsePushBody, pushDedupeKey, toPush } from '../../../src/wechat/push';

const HEAD =
  '<ToUserName><![CDATA[gh_97417a04a28d]]></ToUserName><FromUserName><![CDATA[oFollower1]]></FromUserName>' +
  '<CreateTime>1714112445</CreateTime>';
const xml = (rest: string) => `<xml>${HEAD}${rest}</xml>`;
const json = (rest: string) =>
  `{"ToUserName":"gh_97417a04a28d","FromUserName":"oFollower1","CreateTime":1714112445${rest}}`;

function malformedCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError && err.httpStatus === 400) return err.code;
    throw err;
  }
  return 'accepted';
}

describe('parsePushBody + toPush: the event kinds, in XML and JSON', () => {
  it.each([
    [
      'subscribe by QR code with a qrscene_ EventKey and a Ticket',
      xml(
        '<MsgType><![CDATA[event]]></MsgType><Event><![CDATA[subscribe]]></Event><EventKey><![CDATA[qrscene_123123]]></EventKey><Ticket><![CDATA[TICKET]]></Ticket>',
      ),
      json(',"MsgType":"event","Event":"subscribe","EventKey":"qrscene_123123","Ticket":"TICKET"'),
      { msgType: 'event', event: 'subscribe', eventKey: 'qrscene_123123', ticket: 'TICKET', msgId: null },
    ],
    [
      'SCAN by a follower with the bare scene',
      xml(
        '<MsgType><![CDATA[event]]></MsgType><Event><![CDATA[SCAN]]></Event><EventKey><![CDATA[42]]></EventKey><Ticket><![CDATA[T2]]></Ticket>',
      ),
      json(',"MsgType":"event","Event":"SCAN","EventKey":"42","Ticket":"T2"'),
      { event: 'SCAN', eventKey: '42', ticket: 'T2', content: null },
    ],
    [
      'CLICK on a menu',
      xml(
        '<MsgType><![CDATA[event]]></MsgType><Event><![CDATA[CLICK]]></Event><EventKey><![CDATA[V1001_TODAY]]></EventKey>',
      ),
      json(',"MsgType":"event","Event":"CLICK","EventKey":"V1001_TODAY"'),
      { event: 'CLICK', eventKey: 'V1001_TODAY', ticket: null },
    ],
    [
      'unsubscribe',
      xml('<MsgType><![CDATA[event]]></MsgType><Event><![CDATA[unsubscribe]]></Event>'),
      json(',"MsgType":"event","Event":"unsubscribe"'),
      { event: 'unsubscribe', eventKey: null },
    ],
    [
      'a text message whose 64-bit MsgId survives exactly',
      xml(
        '<MsgType><![CDATA[text]]></MsgType><Content><![CDATA[hi & <b>]]></Content><MsgId>23137257245938472</MsgId>',
      ),
      json(',"MsgType":"text","Content":"hi & <b>","MsgId":23137257245938472'),
      { msgType: 'text', event: null, content: 'hi & <b>', msgId: '23137257245938472' },
    ],
  ])('reads %s', (_name, xmlBody, jsonBody, expected) => {
    for (const [raw, format] of [
      [xmlBody, 'xml'],
      [jsonBody, 'json'],
    ] as const) {
      const push = toPush(parsePushBody(raw, format));
      expect(push).toMatchObject({
        toUserName: 'gh_97417a04a28d',
        openid: 'oFollower1',
        createTime: 1714112445,
        ...expected,
      });
      expect(push.fields.CreateTime).toBe('1714112445');
    }
  });

  it('reads text entities and an XML declaration, and keeps nested lists as dotted fields', () => {
    const raw =
      '<?xml version="1.0" encoding="utf-8"?>\n' +
      xml(
        '<MsgType>event</MsgType><Event>scancode_push</Event><EventKey>k&amp;&#x4F60;</EventKey>' +
          '<ScanCodeInfo><ScanType><![CDATA[qrcode]]></ScanType><ScanResult>1</ScanResult></ScanCodeInfo>' +
          '<SendPicsInfo><PicList><item><PicMd5Sum>a</PicMd5Sum></item><item><PicMd5Sum>b</PicMd5Sum></item></PicList></SendPicsInfo>',
      );
    const fields = parsePushBody(raw, 'xml');
    expect(fields).toMatchObject({
      EventKey: 'k&你',
      'ScanCodeInfo.ScanType': 'qrcode',
      'ScanCodeInfo.ScanResult': '1',
      'SendPicsInfo.PicList.item.0.PicMd5Sum': 'a',
      'SendPicsInfo.PicList.item.1.PicMd5Sum': 'b',
    });
    const jsonFields = parsePushBody(
      '{"List":[{"TemplateId":"t1"},{"TemplateId":"t2"}],"One":{"X":true}}',
      'json',
    );
    expect(jsonFields).toEqual({ 'List.0.TemplateId': 't1', 'List.1.TemplateId': 't2', 'One.X': 'true' });
  });

  it('answers push_malformed when ToUserName, FromUserName, CreateTime or MsgType is missing', () => {
    const full = { ToUserName: 'gh', FromUserName: 'o1', CreateTime: '1', MsgType: 'event' };
    expect(toPush(full).openid).toBe('o1');
    for (const name of Object.keys(full)) {
      const fields: Record<string, string> = { ...full };
      delete fields[name];
      expect(malformedCode(() => toPush(fields))).toBe('push_malformed');
    }
    expect(malformedCode(() => toPush({ ...full, CreateTime: 'yesterday' }))).toBe('push_malformed');
  });
});

describe('parsePushBody: what a follower may type', () => {
  it('stores NUL and lone surrogates as U+FFFD (Postgres cannot hold them), keeping surrogate pairs', () => {
    const fromXml = parsePushBody(
      xml('<MsgType>text</MsgType><Content><![CDATA[a\u0000b]]>&#0;&#xD800;c&#xD83D;&#xDE00;</Content>'),
      'xml',
    );
    expect(fromXml.Content).toBe('a\uFFFDb\uFFFD\uFFFDc\u{1F600}');
    const fromJson = parsePushBody(
      json(',"MsgType":"text","Content":"a\\u0000b\\ud800c\\udc00\\ud83d\\ude00","MsgId":1'),
      'json',
    );
    expect(fromJson.Content).toBe('a\uFFFDb\uFFFDc\uFFFD\u{1F600}');
  });

  it('still refuses a character reference beyond Unicode', () => {
    expect(malformedCode(() => parsePushBody(xml('<Content>&#x110000;</Content>'), 'xml'))).toBe(
      'push_malformed',
    );
  });
});

describe("parsePushBody: whitespace around values, as WeChat's SDKs read it (wechatpy strips it)", () => {
  it('drops the whitespace between a tag and its CDATA, and around a plain value', () => {
    const body =
      '<xml>\n  <ToUserName>\n <![CDATA[gh_97417a04a28d]]>\n</ToUserName>\n' +
      '  <FromUserName>\n <![CDATA[o1]]>\n</FromUserName>\r\n' +
      '  <CreateTime>\n 1714112445 \n</CreateTime><MsgType>\t<![CDATA[event]]> </MsgType>' +
      '<Event><![CDATA[subscribe]]></Event>\n</xml>';
    expect(toPush(parsePushBody(body, 'xml'))).toMatchObject({
      toUserName: 'gh_97417a04a28d',
      openid: 'o1',
      createTime: 1714112445,
      msgType: 'event',
      event: 'subscribe',
    });
  });

  it("keeps what CDATA holds verbatim, and a follower's ideographic space, which is text", () => {
    const fields = parsePushBody(
      xml('<MsgType>text</MsgType><Content> <![CDATA[ hi\n ]]> </Content><Note>\u3000x\u3000</Note>'),
      'xml',
    );
    expect(fields.Content).toBe(' hi\n ');
    expect(fields.Note).toBe('\u3000x\u3000');
  });

  it('trims a megabyte of spaces before one letter in linear time', () => {
    const started = performance.now();
    const fields = parsePushBody(
      xml(`<MsgType>text</MsgType><Content>${' '.repeat(1_000_000)}x</Content>`),
      'xml',
    );
    expect(fields.Content).toBe('x');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('parsePushBody: duplicate JSON keys', () => {
  it.each([
    ['at the top', json(',"MsgType":"event","FromUserName":"oOther"')],
    ['spelled with an escape', json(',"MsgType":"event","From\\u0055serName":"oOther"')],
    ['in a nested object', json(',"ScanCodeInfo":{"ScanType":"a","ScanType":"b"}')],
    ['in an object inside a list', json(',"List":[{"TemplateId":"t1","TemplateId":"t2"}]')],
  ])('refuses a key repeated %s', (_name, raw) => {
    expect(malformedCode(() => parsePushBody(raw, 'json'))).toBe('push_malformed');
  });

  it('accepts one key in several objects, and a key equal to a value', () => {
    const fields = parsePushBody(
      '{"List":[{"TemplateId":"t1"},{"TemplateId":"t2"}],"A":{"X":"TemplateId"},"B":{"X":"2"}}',
      'json',
    );
    expect(fields).toEqual({
      'List.0.TemplateId': 't1',
      'List.1.TemplateId': 't2',
      'A.X': 'TemplateId',
      'B.X': '2',
    });
  });
});

describe('parsePushBody: refusals', () => {
  it('refuses an XXE body with a DOCTYPE and an external ENTITY', () => {
    const xxe =
      '<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' +
      xml('<MsgType>text</MsgType><Content>&xxe;</Content><MsgId>1</MsgId>');
    expect(malformedCode(() => parsePushBody(xxe, 'xml'))).toBe('push_malformed');
  });

  it('refuses a billion-laughs body', () => {
    const laughs =
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>' +
      xml('<MsgType>text</MsgType><Content>&lol3;</Content>');
    expect(malformedCode(() => parsePushBody(laughs, 'xml'))).toBe('push_malformed');
  });

  it('refuses a reference to an undeclared entity even without a DOCTYPE', () => {
    expect(malformedCode(() => parsePushBody(xml('<Content>&xxe;</Content>'), 'xml'))).toBe('push_malformed');
  });

  it('accepts a DOCTYPE that is only text inside CDATA (a user may type anything)', () => {
    const raw = xml('<MsgType>text</MsgType><Content><![CDATA[<!DOCTYPE html>]]></Content>');
    expect(parsePushBody(raw, 'xml').Content).toBe('<!DOCTYPE html>');
  });

  it.each([
    ['a comment', xml('<!-- hi --><MsgType>text</MsgType>')],
    ['an attribute', xml('<MsgType type="x">text</MsgType>')],
    ['mixed text and elements', xml('<MsgType>text<b>x</b></MsgType>')],
    ['a repeated top-level field', xml('<FromUserName>oOther</FromUserName>')],
    ['a mismatched closing tag', '<xml><MsgType>text</Content></xml>'],
    ['an unclosed root', '<xml><MsgType>text</MsgType>'],
    ['another root element', '<root><MsgType>text</MsgType></root>'],
    ['content after the root', `${xml('')}<xml></xml>`],
    ['nesting deeper than WeChat sends', xml('<a><b><c><d><e><f>deep</f></e></d></c></b></a>')],
    ['text directly in the root', '<xml>just text</xml>'],
    ['a bare ampersand', xml('<Content>a & b</Content>')],
  ])('refuses %s in XML', (_name, raw) => {
    expect(malformedCode(() => parsePushBody(raw, 'xml'))).toBe('push_malformed');
  });

  it.each([
    ['an array', '[{"ToUserName":"gh"}]'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['broken JSON', '{"ToUserName":'],
    ['a bad field name', '{"To User":"gh"}'],
    ['nesting deeper than WeChat sends', '{"a":{"b":{"c":{"d":{"e":{"f":"deep"}}}}}}'],
    ['XML sent to a JSON account', xml('<MsgType>text</MsgType>')],
  ])('refuses %s as a JSON push', (_name, raw) => {
    expect(malformedCode(() => parsePushBody(raw, 'json'))).toBe('push_malformed');
  });
});

describe('pushDedupeKey', () => {
  it('uses the MsgId for messages', () => {
    const push = toPush(
      parsePushBody(json(',"MsgType":"text","Content":"hi","MsgId":23137257245938472'), 'json'),
    );
    expect(pushDedupeKey(push)).toBe('msg:23137257245938472');
  });

  it('uses FromUserName, CreateTime, Event and EventKey for events', () => {
    const scan = toPush(parsePushBody(json(',"MsgType":"event","Event":"SCAN","EventKey":"42"'), 'json'));
    const follow = toPush(parsePushBody(json(',"MsgType":"event","Event":"subscribe"'), 'json'));
    expect(pushDedupeKey(scan)).toBe('evt:oFollower1:1714112445:SCAN:42');
    expect(pushDedupeKey(follow)).toBe('evt:oFollower1:1714112445:subscribe:');
  });

  it('tells apart two notice answers of one second by their lists, and keeps a retry of one the same', () => {
    const answer = (status: string) =>
      toPush(
        parsePushBody(
          json(
            `,"MsgType":"event","Event":"subscribe_msg_popup_event","List":{"TemplateId":"T1","SubscribeStatusString":"${status}"}`,
          ),
          'json',
        ),
      );
    expect(pushDedupeKey(answer('accept'))).toMatch(
      /^evt:oFollower1:1714112445:subscribe_msg_popup_event::[0-9a-f]{40}$/,
    );
    expect(pushDedupeKey(answer('accept'))).toBe(pushDedupeKey(answer('accept')));
    expect(pushDedupeKey(answer('accept'))).not.toBe(pushDedupeKey(answer('reject')));
  });

  it('tells apart two template delivery reports of one second by their MsgID', () => {
    const report = (msgid: string) =>
      toPush(
        parsePushBody(
          json(`,"MsgType":"event","Event":"TEMPLATESENDJOBFINISH","MsgID":${msgid},"Status":"success"`),
          'json',
        ),
      );
    expect(pushDedupeKey(report('200000001'))).toBe(
      'evt:oFollower1:1714112445:TEMPLATESENDJOBFINISH::200000001',
    );
    expect(pushDedupeKey(report('200000001'))).not.toBe(pushDedupeKey(report('200000002')));
  });
});

describe('extractEncrypt', () => {
  it('reads Encrypt from safe-mode XML and JSON bodies', () => {
    const xmlBody =
      '<xml><ToUserName><![CDATA[gh_1]]></ToUserName><Encrypt><![CDATA[abc+/=]]></Encrypt></xml>';
    expect(extractEncrypt(xmlBody, 'xml')).toBe('abc+/=');
    expect(extractEncrypt('{"ToUserName":"gh_1","Encrypt":"abc+/="}', 'json')).toBe('abc+/=');
  });

  it('answers push_malformed for a plaintext body without Encrypt', () => {
    expect(malformedCode(() => extractEncrypt(xml('<MsgType>text</MsgType>'), 'xml'))).toBe('push_malformed');
  });
});
