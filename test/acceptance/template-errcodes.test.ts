import {
  aMessageRequest,
  anOpenid,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
  aWindowPolicy,
} from './support/builders';
import { untilStatus } from './support/expectations';
import { createSimulatorClient, type SimulatorClient } from './support/simulator-client';
import type { MessageView, SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, startWorld, type World } from './support/world';

// An account that lost the publish APIs (personal / unverified since 2025-07): the simulator answers its
// mpnewsarticle sends 48001.
const NO_PUBLISH_APP_ID = 'wxacceptance0003';
// An account whose sequence steps fall back to template messages: a menu click opens a 1 s window, and a
// step due 2 s later goes out as its template fallback.
const FALLBACK_APP_ID = 'wxacceptance0004';
const SHORT_WINDOW = aWindowPolicy({ click: { count: 3, windowMs: 1000 } });

let world: World;
let noPublish: SimulatorClient;
let fallbackSim: SimulatorClient;
beforeAll(async () => {
  world = await startWorld({
    name: 'template-errcodes',
    accounts: [
      anAccount(),
      anAccount({ appId: NO_PUBLISH_APP_ID }),
      anAccount({ appId: FALLBACK_APP_ID, windowPolicy: SHORT_WINDOW }),
    ],
    enforceWindow: false,
  });
  noPublish = createSimulatorClient(world.sim.url, NO_PUBLISH_APP_ID);
  fallbackSim = createSimulatorClient(world.sim.url, FALLBACK_APP_ID);
  await world.sim.register({ ...anAccount({ appId: NO_PUBLISH_APP_ID }), publishApis: false });
}, 60_000);
afterAll(() => world?.close(), 30_000);
afterEach(async () => {
  await world.sim.clearFaults();
  await world.sim.clearTemplateReports();
});

const aTemplateRequest = () => aMessageRequest({ channel: 'template', message: aTemplateMessage() });
const anArticle = { msgtype: 'mpnewsarticle', mpnewsarticle: { article_id: 'article-0001' } };

/** The fallback account's step for a new follower (follow, click), once it was sent or failed. */
async function fallbackStep(sequence: SequenceView): Promise<MessageView> {
  const openid = anOpenid();
  await fallbackSim.follow(openid);
  await fallbackSim.click(openid, 'TEMPLATE_STEP');
  const id = await waitFor(
    async () =>
      (await world.api.follower(FALLBACK_APP_ID, openid)).messages.find((m) => m.sequenceId === sequence.id)
        ?.id as string | undefined,
    `the step for ${openid} to be scheduled`,
  );
  return waitFor(
    async () => {
      const m = await world.api.message(id);
      return ['sent', 'failed'].includes(m.status) ? m : undefined;
    },
    `the step for ${openid} to finish`,
    { timeoutMs: 20_000 },
  );
}

/** The sequence's results, once `ready` holds for them. */
async function resultsWhen(
  sequence: SequenceView,
  ready: (step: Record<string, Record<string, number>>) => boolean,
  what: string,
): Promise<Record<string, Record<string, number>>> {
  return waitFor(async () => {
    const step = (await world.api(`/v1/sequences/${sequence.id}/results`)).body.steps?.[0];
    return step && ready(step) ? step : undefined;
  }, what);
}

// One send at a time: a fault or a delivery report applies to the next sends, whoever's.
describe('WeChat errcodes and what the service does', () => {
  it.each([
    [43116, 'template_banned'],
    [40249, 'content_blocked'],
  ])(
    '%i on a template send fails the message for good (%s); nothing reaches the follower',
    async (errcode, reason) => {
      await world.sim.setFaults({ forceErrcode: errcode, channel: 'template', count: 1 });
      const created = await world.api.schedule(aTemplateRequest());
      const failed = await untilStatus(world.api, created.id, 'failed');
      expect(failed).toMatchObject({ statusReason: reason, attempts: 1 });
      expect(await world.sim.messages(created.openid!)).toEqual([]);
    },
  );

  it('43117 (too frequent for this follower) tries the same message again no sooner than 10 minutes later', async () => {
    await world.sim.setFaults({ forceErrcode: 43117, channel: 'template', count: 1 });
    const before = Date.now();
    const created = await world.api.schedule(aTemplateRequest());
    const held = await waitFor(async () => {
      const m = await world.api.message(created.id);
      return m.statusReason === 'too_frequent' ? m : undefined;
    }, 'the message to be held after 43117');
    expect(held).toMatchObject({ status: 'queued', attempts: 1 });
    expect(Date.parse(held.dueAt)).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(await world.sim.messages(created.openid!)).toEqual([]);
  });

  it('a fault limited to template sends leaves customer-service messages alone', async () => {
    await world.sim.setFaults({ forceErrcode: 43116, channel: 'template', count: 1 });
    const text = await world.api.schedule(aMessageRequest());
    await untilStatus(world.api, text.id, 'sent');
    const template = await world.api.schedule(aTemplateRequest());
    expect((await untilStatus(world.api, template.id, 'failed')).statusReason).toBe('template_banned');
  });

  it('48001 on mpnewsarticle (an account without the publish APIs) fails that message not_authorized, counts it in the step results, and the account keeps sending', async () => {
    const direct = await world.api.schedule(
      aMessageRequest({ appId: NO_PUBLISH_APP_ID, message: anArticle }),
    );
    expect((await untilStatus(world.api, direct.id, 'failed')).statusReason).toBe('not_authorized');
    expect(await noPublish.messages(direct.openid!)).toEqual([]);

    const sequence = await world.api.createSequence(
      aSequence({
        appId: NO_PUBLISH_APP_ID,
        trigger: { type: 'subscribe' },
        steps: [aStep({ message: anArticle })],
      }),
    );
    await noPublish.follow(anOpenid());
    await resultsWhen(
      sequence,
      (s) => s.failed?.not_authorized === 1,
      'the step to count one not_authorized',
    );

    const text = await world.api.schedule(aMessageRequest({ appId: NO_PUBLISH_APP_ID }));
    await untilStatus(world.api, text.id, 'sent');
    // The same article from an account with the publish APIs goes out.
    const allowed = await world.api.schedule(aMessageRequest({ message: anArticle }));
    await untilStatus(world.api, allowed.id, 'sent');
  });

  it('template steps: 43116 and 40249 count as failed by reason, a TEMPLATESENDJOBFINISH failed:freq limit as an undelivered sent message', async () => {
    const sequence = await world.api.createSequence(
      aSequence({
        appId: FALLBACK_APP_ID,
        trigger: { type: 'click', key: 'TEMPLATE_STEP' },
        steps: [aStep({ offsetMs: 2000, message: aTextMessage('too late'), fallback: aTemplateMessage() })],
      }),
    );
    await world.sim.setFaults({ forceErrcode: 43116, channel: 'template', count: 1 });
    expect(await fallbackStep(sequence)).toMatchObject({
      status: 'failed',
      statusReason: 'template_banned',
    });
    await world.sim.setFaults({ forceErrcode: 40249, channel: 'template', count: 1 });
    expect(await fallbackStep(sequence)).toMatchObject({
      status: 'failed',
      statusReason: 'content_blocked',
    });

    await world.sim.setTemplateReports({ status: 'failed:freq limit', count: 1 });
    const reported = await fallbackStep(sequence);
    expect(reported).toMatchObject({ status: 'sent', channel: 'template' });
    const undelivered = await waitFor(
      async () => {
        const m = await world.api.message(reported.id);
        return m.deliveryReport !== null ? m : undefined;
      },
      'the delivery report to be recorded on the message',
      { timeoutMs: 30_000 },
    );
    expect(undelivered).toMatchObject({ status: 'sent', deliveryReport: 'failed_freq_limit' });

    await world.sim.setTemplateReports({ status: 'success', count: 1 });
    const delivered = await fallbackStep(sequence);
    await waitFor(
      async () => (await world.api.message(delivered.id)).deliveryReport === 'delivered',
      'the success report to be recorded',
      // A report pushed before the send was recorded lands with the sweep of stale pushes (10 s).
      { timeoutMs: 30_000 },
    );

    const step = await resultsWhen(
      sequence,
      (s) => s.delivery?.delivered === 1,
      'the step results to count both delivery reports',
    );
    expect(step).toMatchObject({
      sent: 2,
      failed: { template_banned: 1, content_blocked: 1 },
      delivery: { failed_freq_limit: 1, delivered: 1 },
    });
  }, 120_000);
});
