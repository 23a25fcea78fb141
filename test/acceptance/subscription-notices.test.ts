import {
  aMessageRequest,
  aNoticeMessage,
  anOpenid,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
} from './support/builders';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/sequences.md "Subscription notices": a step outside the contact window with a notice fallback reaches a
// follower who accepted the notice's template, once per acceptance, and is skipped `no_subscription` for
// one who did not; WeChat's delivery report lands on the message.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'notices', accounts: [anAccount({ windowPolicy: 'official' })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const NOTICE = aNoticeMessage();

/** Enrolls `openid` in the sequence and waits for its one step to end; answers that step's message. */
async function enrollAndSettle(sequenceId: string, openid: string) {
  const enrolled = await world.api(`/v1/sequences/${sequenceId}/enrollments`, { json: { openid } });
  expect(enrolled.status).toBe(201);
  const id = enrolled.body.messages[0].id as string;
  return waitFor(async () => {
    const m = await world.api.message(id);
    return ['sent', 'skipped', 'failed'].includes(m.status) ? m : undefined;
  }, `the step to ${openid} to be sent or skipped`);
}

describe('Subscription notices', () => {
  it('a step outside the window with a notice fallback reaches a follower who accepted, once per acceptance, and is skipped for one who did not', async () => {
    const created = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'api' },
        steps: [
          // +1 s: the follower's answer (a push, processed just after it is stored) is recorded by then.
          aStep({
            offsetMs: 1000,
            message: aTextMessage('in the window'),
            fallback: { channel: 'notice', ...NOTICE },
          }),
        ],
      }),
    });
    expect(created.status).toBe(201);
    const accepted = anOpenid('accepted');
    const other = anOpenid('other');
    const popup = await world.sim.notice(accepted, [{ templateId: NOTICE.template_id, status: 'accept' }]);
    expect(popup.pushes.map((p) => p.status)).toEqual([200]);

    const reached = await enrollAndSettle(created.body.id, accepted);
    const skipped = await enrollAndSettle(created.body.id, other);
    const again = await enrollAndSettle(created.body.id, accepted);

    expect(reached).toMatchObject({ status: 'sent', channel: 'notice', message: NOTICE });
    expect(skipped).toMatchObject({ status: 'skipped', statusReason: 'no_subscription' });
    expect(again).toMatchObject({ status: 'skipped', statusReason: 'no_subscription' });
    const received = await world.sim.messages(accepted);
    expect(received.map((m) => [m.channel, m.body.template_id, m.body.touser])).toEqual([
      ['notice', NOTICE.template_id, accepted],
    ]);
    expect(await world.sim.messages(other)).toEqual([]);
    await waitFor(
      async () => (await world.api.message(reached.id)).noticeResult === 'success',
      'the notice’s delivery report (subscribe_msg_sent_event) on the message',
    );
  });

  it('sends an API notice only after the follower accepts, and not once they rejected', async () => {
    const openid = anOpenid('api');
    const before = await world.api.schedule(aMessageRequest({ openid, channel: 'notice', message: NOTICE }));
    await waitFor(
      async () => (await world.api.message(before.id)).statusReason === 'no_subscription',
      'the notice sent before any acceptance to be skipped no_subscription',
    );

    await world.sim.notice(openid, [{ templateId: NOTICE.template_id, status: 'accept' }]);
    await world.sim.notice(openid, [{ templateId: NOTICE.template_id, status: 'reject' }]);
    // The webhook answers once a push is stored and processes it just after: the notices below fall due a
    // moment later, once the follower's answers are recorded.
    const rejected = await world.api.schedule(
      aMessageRequest({ openid, channel: 'notice', message: NOTICE, delayMs: 1000 }),
    );
    await waitFor(
      async () => (await world.api.message(rejected.id)).statusReason === 'no_subscription',
      'the notice after a rejection to be skipped no_subscription',
    );

    await world.sim.notice(openid, [{ templateId: NOTICE.template_id, status: 'accept' }]);
    const after = await world.api.schedule(
      aMessageRequest({ openid, channel: 'notice', message: NOTICE, delayMs: 1000 }),
    );
    await waitFor(
      async () => (await world.api.message(after.id)).status === 'sent',
      'the accepted notice to be sent',
    );
    expect((await world.sim.messages(openid)).map((m) => m.channel)).toEqual(['notice']);
  });

  it('refuses a notice whose thing keyword is over 20 characters, naming it, and schedules nothing', async () => {
    const openid = anOpenid('bad');
    const res = await world.api('/v1/messages', {
      json: aMessageRequest({
        openid,
        channel: 'notice',
        message: aNoticeMessage('这是一段明显超过二十个字的课程名称说明文字内容'),
      }),
    });

    expect(res.status).toBe(400);
    expect(res.text).toContain('thing');
    expect((await world.api.follower(APP_ID, openid)).messages).toEqual([]);
  });
  it('reaches a follower who accepted and then unfollowed with a notice (服务通知), while customer-service and template messages to them are skipped unsubscribed', async () => {
    const openid = anOpenid('gone');
    await world.sim.follow(openid);
    await world.sim.notice(openid, [{ templateId: NOTICE.template_id, status: 'accept' }]);
    await world.sim.unfollow(openid);
    await waitFor(
      async () => (await world.api.follower(APP_ID, openid)).follower?.subscribed === false || undefined,
      'the unfollow to be processed',
    );

    const notice = await world.api.schedule(aMessageRequest({ openid, channel: 'notice', message: NOTICE }));
    const text = await world.api.schedule(aMessageRequest({ openid, message: aTextMessage('come back') }));
    const template = await world.api.schedule(
      aMessageRequest({ openid, channel: 'template', message: aTemplateMessage('come back') }),
    );

    const ended = (id: string) => async () => {
      const m = await world.api.message(id);
      return ['sent', 'skipped', 'failed'].includes(m.status) ? m : undefined;
    };
    expect(await waitFor(ended(notice.id), 'the notice to end')).toMatchObject({
      status: 'sent',
      channel: 'notice',
    });
    expect(await waitFor(ended(text.id), 'the text message to end')).toMatchObject({
      status: 'skipped',
      statusReason: 'unsubscribed',
    });
    expect(await waitFor(ended(template.id), 'the template message to end')).toMatchObject({
      status: 'skipped',
      statusReason: 'unsubscribed',
    });
    const received = await world.sim.messages(openid);
    expect(received.map((m) => [m.channel, m.body.template_id, m.body.touser])).toEqual([
      ['notice', NOTICE.template_id, openid],
    ]);
  });
});
