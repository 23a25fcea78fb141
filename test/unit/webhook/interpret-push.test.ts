import { interpretPush } from '../../../src/webhook/interpret-push';
import { toPush } from '../../../src/wechat/push';

const push = (fields: Record<string, string>) =>
  toPush({ ToUserName: 'gh_1', FromUserName: 'o1', CreateTime: '1714112445', ...fields });

describe('interpretPush', () => {
  it('reads a follow from a QR code as a subscribe interaction with its scene', () => {
    expect(
      interpretPush(push({ MsgType: 'event', Event: 'subscribe', EventKey: 'qrscene_spring', Ticket: 't' })),
    ).toEqual({
      interaction: 'subscribe',
      detail: 'spring',
      trigger: { type: 'subscribe', scene: 'spring' },
      action: null,
      unsubscribe: false,
      noticeAnswers: [],
      noticeResults: [],
      templateReport: null,
    });
  });

  it('reads a plain follow with no scene', () => {
    expect(interpretPush(push({ MsgType: 'event', Event: 'subscribe' })).trigger).toEqual({
      type: 'subscribe',
      scene: null,
    });
  });

  it('reads an unfollow', () => {
    expect(interpretPush(push({ MsgType: 'event', Event: 'unsubscribe' }))).toMatchObject({
      unsubscribe: true,
      interaction: null,
    });
  });

  it('counts SCAN, CLICK and scancode menus, but not VIEW (a link) or LOCATION', () => {
    expect(interpretPush(push({ MsgType: 'event', Event: 'SCAN', EventKey: 'booth-7' })).trigger).toEqual({
      type: 'scan',
      scene: 'booth-7',
    });
    expect(interpretPush(push({ MsgType: 'event', Event: 'CLICK', EventKey: 'MENU_A' })).interaction).toBe(
      'click',
    );
    expect(interpretPush(push({ MsgType: 'event', Event: 'scancode_push', EventKey: 'S' })).interaction).toBe(
      'click',
    );
    expect(
      interpretPush(push({ MsgType: 'event', Event: 'VIEW', EventKey: 'https://x' })).interaction,
    ).toBeNull();
    expect(interpretPush(push({ MsgType: 'event', Event: 'LOCATION' })).interaction).toBeNull();
  });

  it('counts a user message of any type, and offers text to keyword triggers', () => {
    expect(interpretPush(push({ MsgType: 'text', Content: '课程', MsgId: '1' }))).toMatchObject({
      interaction: 'message',
      trigger: { type: 'message', text: '课程' },
    });
    expect(interpretPush(push({ MsgType: 'image', PicUrl: 'u', MsgId: '2' }))).toMatchObject({
      interaction: 'message',
      trigger: null,
    });
  });

  it('offers every user message to the exits and waits (text only for keywords), menu clicks by key, scans by scene', () => {
    expect(interpretPush(push({ MsgType: 'text', Content: '退订', MsgId: '4' })).action).toEqual({
      type: 'message',
      text: '退订',
    });
    expect(interpretPush(push({ MsgType: 'voice', MediaId: 'm', MsgId: '5' })).action).toEqual({
      type: 'message',
      text: null,
    });
    expect(interpretPush(push({ MsgType: 'event', Event: 'CLICK', EventKey: 'STOP' })).action).toEqual({
      type: 'click',
      key: 'STOP',
    });
    expect(interpretPush(push({ MsgType: 'event', Event: 'subscribe' })).action).toBeNull();
    expect(interpretPush(push({ MsgType: 'event', Event: 'SCAN', EventKey: 'b' })).action).toEqual({
      type: 'scan',
      scene: 'b',
    });
  });

  it('counts a msgmenu tap as a menu click, not a user message (no 48 h window)', () => {
    expect(
      interpretPush(push({ MsgType: 'text', Content: '满意', MsgId: '3', bizmsgmenuid: '101' })),
    ).toMatchObject({
      interaction: 'click',
      trigger: null,
      action: null,
    });
  });

  it('means nothing for an event type it does not know', () => {
    expect(interpretPush(push({ MsgType: 'event', Event: 'brand_new_event' }))).toEqual({
      interaction: null,
      detail: null,
      trigger: null,
      action: null,
      unsubscribe: false,
      noticeAnswers: [],
      noticeResults: [],
      templateReport: null,
    });
  });

  it("reads a popup's answers per template, a single entry as a list of one", () => {
    const one = push({
      MsgType: 'event',
      Event: 'subscribe_msg_popup_event',
      'SubscribeMsgPopupEvent.List.TemplateId': 'TPL_A',
      'SubscribeMsgPopupEvent.List.SubscribeStatusString': 'accept',
      'SubscribeMsgPopupEvent.List.PopupScene': '2',
    });
    expect(interpretPush(one)).toMatchObject({
      interaction: null,
      noticeAnswers: [{ templateId: 'TPL_A', accept: true }],
    });
    const two = push({
      MsgType: 'event',
      Event: 'subscribe_msg_popup_event',
      'SubscribeMsgPopupEvent.List.0.TemplateId': 'TPL_A',
      'SubscribeMsgPopupEvent.List.0.SubscribeStatusString': 'accept',
      'SubscribeMsgPopupEvent.List.1.TemplateId': 'TPL_B',
      'SubscribeMsgPopupEvent.List.1.SubscribeStatusString': 'reject',
    });
    expect(interpretPush(two).noticeAnswers).toEqual([
      { templateId: 'TPL_A', accept: true },
      { templateId: 'TPL_B', accept: false },
    ]);
  });

  it('reads a change event in either wrapper, and a JSON push with no wrapper', () => {
    for (const prefix of ['SubscribeMsgChangeEvent.List', 'SubscribeMsgPopupEvent.List', 'List']) {
      const change = push({
        MsgType: 'event',
        Event: 'subscribe_msg_change_event',
        [`${prefix}.TemplateId`]: 'TPL_A',
        [`${prefix}.SubscribeStatusString`]: 'reject',
      });
      expect(interpretPush(change).noticeAnswers).toEqual([{ templateId: 'TPL_A', accept: false }]);
    }
  });

  it('leaves out an answer that is neither accept nor reject', () => {
    const odd = push({
      MsgType: 'event',
      Event: 'subscribe_msg_popup_event',
      'SubscribeMsgPopupEvent.List.TemplateId': 'TPL_A',
      'SubscribeMsgPopupEvent.List.SubscribeStatusString': 'maybe',
    });
    expect(interpretPush(odd).noticeAnswers).toEqual([]);
  });

  it("reads a sent event's delivery results", () => {
    const sent = push({
      MsgType: 'event',
      Event: 'subscribe_msg_sent_event',
      'SubscribeMsgSentEvent.List.0.TemplateId': 'TPL_A',
      'SubscribeMsgSentEvent.List.0.MsgID': '1700827132819554304',
      'SubscribeMsgSentEvent.List.0.ErrorCode': '0',
      'SubscribeMsgSentEvent.List.0.ErrorStatus': 'success',
      'SubscribeMsgSentEvent.List.1.TemplateId': 'TPL_B',
      'SubscribeMsgSentEvent.List.1.ErrorCode': '10005',
      'SubscribeMsgSentEvent.List.1.ErrorStatus': 'fail',
    });
    expect(interpretPush(sent)).toMatchObject({
      interaction: null,
      noticeResults: [
        { templateId: 'TPL_A', result: 'success' },
        { templateId: 'TPL_B', result: 'failed:10005' },
      ],
    });
  });

  it.each([
    ['success', 'delivered'],
    ['failed:user block', 'failed_user_block'],
    ['failed: system failed', 'failed_system'],
    ['failed:freq limit', 'failed_freq_limit'],
    ['failed:something new', 'failed_other'],
  ])("reads a template's delivery report %s as %s, by its MsgID, opening no window", (status, report) => {
    const finished = push({
      MsgType: 'event',
      Event: 'TEMPLATESENDJOBFINISH',
      MsgID: '200228332',
      Status: status,
    });
    expect(interpretPush(finished)).toMatchObject({
      interaction: null,
      trigger: null,
      templateReport: { msgid: '200228332', report },
    });
  });

  it('means nothing for a delivery report without a MsgID or with a Status it does not know', () => {
    const noId = push({ MsgType: 'event', Event: 'TEMPLATESENDJOBFINISH', Status: 'success' });
    const odd = push({ MsgType: 'event', Event: 'TEMPLATESENDJOBFINISH', MsgID: '1', Status: 'queued' });
    expect(interpretPush(noId).templateReport).toBeNull();
    expect(interpretPush(odd).templateReport).toBeNull();
  });
});
