import {
  ACCEPTANCE_TEMPLATE,
  anOpenid,
  aSequence,
  aStep,
  aTemplateMessage,
  aTextMessage,
  aWindowPolicy,
} from './support/builders';
import { FINAL_STATUSES } from './support/expectations';
import type { SequenceView } from './support/types';
import { waitFor } from './support/wait-for';
import { anAccount, APP_ID, startWorld, type World } from './support/world';

// docs/sequences.md "Template messages": WeChat's template rules and the account's template library, as
// the simulator plays them (docs/simulator.md) and the save-time check warns of them.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'templates', accounts: [anAccount({ windowPolicy: aWindowPolicy() })] });
}, 60_000);
afterAll(() => world?.close(), 30_000);

interface Warning {
  path: string;
  message: string;
}

/** An `api` sequence of one step that goes out as its template fallback: an enrollment opens no window. */
const fallbackOnly = (fallback: Record<string, unknown>) =>
  aSequence({
    trigger: { type: 'api' },
    steps: [aStep({ message: aTextMessage('never in a window'), fallback })],
  });

describe('Template messages', () => {
  it('lists the account’s template library with each template’s fields, labelled as the template words them, to choose a fallback from', async () => {
    const { status, body } = await world.api(`/v1/accounts/${APP_ID}/templates`);
    expect(status).toBe(200);
    expect(body).toEqual({
      appId: APP_ID,
      ok: true,
      fetchedAt: expect.any(String),
      templates: [
        {
          templateId: ACCEPTANCE_TEMPLATE.template_id,
          title: ACCEPTANCE_TEMPLATE.title,
          content: ACCEPTANCE_TEMPLATE.content,
          fields: [
            { key: 'thing1', label: '提醒' },
            { key: 'thing2', label: '备注' },
          ],
        },
      ],
    });
    expect((await world.api(`/v1/accounts/${APP_ID}/templates?refresh=true`)).status).toBe(200);
    expect((await world.api('/v1/accounts/wxnosuchaccount1/templates')).status).toBe(404);
    const bad = await world.api(`/v1/accounts/${APP_ID}/templates?refresh=maybe`);
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { details: { path: string }[] } }).error.details[0].path).toBe(
      'query.refresh',
    );
  });

  it('a fallback with a template id the account lacks: WeChat answers 40037, the step fails, the results count it', async () => {
    const created = await world.api('/v1/sequences', {
      json: fallbackOnly({ ...aTemplateMessage('see you'), template_id: 'tpl-acceptance-typo' }),
    });
    expect(created.status).toBe(201);
    const sequence = created.body as SequenceView & { warnings: Warning[] };
    expect(sequence.warnings).toEqual([
      {
        path: 'steps.0.fallback.template_id',
        message: expect.stringContaining('has no template tpl-acceptance-typo') as string,
        rule: { kind: 'unknown_template', templateId: 'tpl-acceptance-typo', known: ['tpl-acceptance-0001'] },
      },
    ]);
    const rejected40037 = async () =>
      ((await world.sim.stats()) as unknown as { rejectedByErrcode: Record<string, number> })
        .rejectedByErrcode['40037'] ?? 0;
    const rejectedBefore = await rejected40037();
    const openid = anOpenid();
    expect((await world.api(`/v1/sequences/${sequence.id}/enrollments`, { json: { openid } })).status).toBe(
      201,
    );

    const step = await waitFor(
      async () =>
        (await world.api.follower(APP_ID, openid)).messages.find((m) =>
          (FINAL_STATUSES as readonly string[]).includes(m.status),
        ),
      `the step for ${openid} to reach a final status`,
      { timeoutMs: 15_000 },
    );
    expect(step).toMatchObject({ status: 'failed', statusReason: 'errcode:40037' });
    expect(await world.sim.messages(openid)).toEqual([]);
    expect(await rejected40037()).toBe(rejectedBefore + 1);
    const results = await world.api(`/v1/sequences/${sequence.id}/results`);
    const [result] = (results.body as { steps: { failed: Record<string, number> }[] }).steps;
    expect(result.failed).toEqual({ 'errcode:40037': 1 });
  });

  it('a fallback with a template the account has goes out, and the follower sees it without first, remark or emoji', async () => {
    const fallback = {
      template_id: ACCEPTANCE_TEMPLATE.template_id,
      data: { first: { value: '您好' }, thing1: { value: '春季🌸瑜伽' }, thing2: { value: '19:00' } },
    };
    const sequence = await world.api.createSequence(fallbackOnly(fallback));
    const openid = anOpenid();
    expect((await world.api(`/v1/sequences/${sequence.id}/enrollments`, { json: { openid } })).status).toBe(
      201,
    );
    const [sent] = await waitFor(async () => {
      const received = await world.sim.messages(openid);
      return received.length > 0 ? received : undefined;
    }, `the template message to ${openid}`);
    expect(sent.shown).toEqual({
      title: ACCEPTANCE_TEMPLATE.title,
      fields: [
        { key: 'thing1', label: '提醒', value: '春季瑜伽' },
        { key: 'thing2', label: '备注', value: '19:00' },
      ],
    });
  });

  it('POST /v1/sequences/validate warns of an unknown template id and of a field over 20 characters, and refuses nothing', async () => {
    const answer = await world.api('/v1/sequences/validate', {
      json: aSequence({
        steps: [
          aStep({ fallback: { template_id: 'tpl-nobody-has', data: { thing1: { value: 'ok' } } } }),
          aStep({
            offsetMs: 1000,
            fallback: {
              ...aTemplateMessage(),
              data: { thing1: { value: '这是一段超过二十个字的课程提醒内容会被微信拒绝' } },
            },
          }),
        ],
      }),
    });
    expect(answer.status).toBe(200);
    const { ok, warnings } = answer.body as { ok: boolean; warnings: Warning[] };
    expect(ok).toBe(true);
    expect(warnings).toEqual(
      expect.arrayContaining([
        {
          path: 'steps.0.fallback.template_id',
          message: expect.stringContaining('40037') as string,
          rule: expect.objectContaining({ kind: 'unknown_template' }) as object,
        },
        {
          path: 'steps.1.fallback.data.thing1.value',
          message: expect.stringContaining('at most 20') as string,
          rule: { kind: 'template_too_long', key: 'thing1', chars: 23 },
        },
      ]),
    );
    expect(warnings.filter((w) => w.path === 'steps.1.fallback.template_id')).toEqual([]);
  });
});
