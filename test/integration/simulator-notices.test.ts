import type { SimulatorAccount } from '../../src/simulator/config';
import { createSimulator, type Simulator } from '../../src/simulator/create-simulator';
import { PushRequestError } from '../../src/simulator/pushes';
import { interpretPush } from '../../src/webhook/interpret-push';
import { parsePushBody, toPush } from '../../src/wechat/push';
import { startFakeWebhook, type FakeWebhook } from '../helpers/fake-webhook';
import { silentLogger } from '../helpers/logger';
import { waitFor } from '../helpers/harness';

const XML: SimulatorAccount = { appId: 'wxnotice0000001', secret: 'secret-1', token: 'pushtoken' };
const JSON_ACCOUNT: SimulatorAccount = { ...XML, appId: 'wxnotice0000002', pushFormat: 'json' };
const TPL = 'NOTICE_TPL_1';

let webhook: FakeWebhook;
let sim: Simulator;
let simUrl: string;

beforeAll(async () => {
  webhook = await startFakeWebhook();
  sim = createSimulator({ accounts: [XML, JSON_ACCOUNT], logger: silentLogger, webhookBaseUrl: webhook.url });
  simUrl = (await sim.listen(0)).url;
});
afterAll(async () => {
  await sim.close();
  await webhook.close();
});
beforeEach(() => webhook.reset());

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${simUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}
const tokenOf = async (a: SimulatorAccount) =>
  (await post('/cgi-bin/stable_token', { grant_type: 'client_credential', appid: a.appId, secret: a.secret }))
    .access_token as string;
const bizsend = async (a: SimulatorAccount, body: unknown) =>
  post(`/cgi-bin/message/subscribe/bizsend?access_token=${await tokenOf(a)}`, body);
const notice = (openid: string, templateId = TPL) => ({
  touser: openid,
  template_id: templateId,
  page: 'https://example.com/detail?id=1',
  data: { thing1: { value: '课程即将开始' } },
});
/** The pushes the webhook received, read as the service reads them. */
const received = (a: SimulatorAccount) =>
  webhook.received.map((p) => interpretPush(toPush(parsePushBody(p.body, a.pushFormat ?? 'xml'))));

describe('the simulator’s subscription notices', () => {
  it.each([XML, JSON_ACCOUNT])(
    'pushes a follower’s popup answers as the service reads them (%#)',
    async (a) => {
      await sim.push('notice', 'oPopup', {
        appId: a.appId,
        answers: [
          { templateId: TPL, status: 'accept' },
          { templateId: 'OTHER', status: 'reject' },
        ],
      });
      expect(received(a).map((m) => m.noticeAnswers)).toEqual([
        [
          { templateId: TPL, accept: true },
          { templateId: 'OTHER', accept: false },
        ],
      ]);
    },
  );

  it('answers 43101 to a notice without an acceptance, sends one per acceptance, then 43101 again', async () => {
    expect(await bizsend(XML, notice('oOnce'))).toEqual({
      errcode: 43101,
      errmsg: 'user refuse to accept the msg',
    });
    await sim.push('notice', 'oOnce', { appId: XML.appId, answers: [{ templateId: TPL, status: 'accept' }] });

    const first = await bizsend(XML, notice('oOnce'));
    const second = await bizsend(XML, notice('oOnce'));

    expect(first).toMatchObject({ errcode: 0, errmsg: 'ok', msgid: expect.any(Number) });
    expect(second.errcode).toBe(43101);
    expect(sim.messages({ openid: 'oOnce' }).map((m) => m.channel)).toEqual(['notice']);
    const sentEvent = () => received(XML).find((m) => m.noticeResults.length > 0);
    expect(await waitFor(() => sentEvent() !== undefined, 5000)).toBe(true);
    expect(sentEvent()!.noticeResults).toEqual([{ templateId: TPL, result: 'success' }]);
  });

  it('answers 43101 after the follower rejected the template they had accepted', async () => {
    await sim.push('notice', 'oRejects', {
      appId: XML.appId,
      answers: [{ templateId: TPL, status: 'accept' }],
    });
    await sim.push('notice', 'oRejects', {
      appId: XML.appId,
      answers: [{ templateId: TPL, status: 'reject' }],
    });

    expect((await bizsend(XML, notice('oRejects'))).errcode).toBe(43101);
  });

  it('delivers a notice to a follower who accepted and then unfollowed (服务通知), where a template message gets 43004', async () => {
    await sim.push('notice', 'oGone', { appId: XML.appId, answers: [{ templateId: TPL, status: 'accept' }] });
    await sim.push('unfollow', 'oGone', { appId: XML.appId });

    expect(await bizsend(XML, notice('oGone'))).toMatchObject({ errcode: 0, errmsg: 'ok' });
    const template = await post(`/cgi-bin/message/template/send?access_token=${await tokenOf(XML)}`, {
      touser: 'oGone',
      template_id: 'TPL_COURSE_REMINDER', // one of the example templates every account starts with
      data: { first: { value: 'come back' } },
    });
    expect(template.errcode).toBe(43004);
    expect(sim.messages({ openid: 'oGone' }).map((m) => m.channel)).toEqual(['notice']);
  });

  it('refuses a bad body (47003, 40003) without consuming the acceptance', async () => {
    await sim.push('notice', 'oBad', { appId: XML.appId, answers: [{ templateId: TPL, status: 'accept' }] });
    const long = {
      ...notice('oBad'),
      data: { thing1: { value: '一二三四五六七八九十一二三四五六七八九十一' } },
    };

    expect((await bizsend(XML, long)).errcode).toBe(47003);
    expect((await bizsend(XML, { ...notice('oBad'), touser: '' })).errcode).toBe(40003);
    expect((await bizsend(XML, notice('oBad'))).errcode).toBe(0);
  });

  it('refuses a notice action without answers or with an unknown status, pushing nothing', async () => {
    for (const answers of [[], [{ templateId: TPL, status: 'maybe' }]]) {
      await expect(sim.push('notice', 'oOdd', { appId: XML.appId, answers } as never)).rejects.toBeInstanceOf(
        PushRequestError,
      );
    }
    expect(webhook.received).toEqual([]);
  });
});
