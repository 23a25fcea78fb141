import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness, waitFor, writtenRows } from '../helpers/harness';
import { aTextMessage } from '../helpers/builders';

// Template sends are not bound by the contact window, so the steps go out to followers who never wrote.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'varstoken', windowPolicy: 'none' };
const template = (first: string) => ({
  template_id: 'tpl-course',
  data: { first: { value: first }, remark: { value: '{{teacher|李老师}}' } },
});

let h: Harness;
let service: Service;
beforeAll(async () => {
  h = await createHarness({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });
  service = await h.start();
});
afterAll(() => h.close());

const post = async (path: string, body: unknown) => {
  const res = await h.api(service, path, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

async function aSequence(fields: object): Promise<string> {
  const { status, body } = await post('/v1/sequences', {
    appId: APP_ID,
    name: 'course reminders',
    status: 'active',
    trigger: { type: 'api' },
    steps: [
      { offsetMs: 0, message: aTextMessage('{{name|同学}}，您报名的《{{course}}》明天开课') },
      { offsetMs: 200, message: aTextMessage('x'), fallback: template('{{course}} 提醒') },
    ],
    ...fields,
  });
  expect(status).toBe(201);
  return body.id as string;
}

const texts = (openid: string) =>
  h.simulator.messages({ appId: APP_ID, openid }).map((m) => m.body as Record<string, any>);

describe('POST /v1/sequences/:id/enrollments', () => {
  it('enrolls a follower with variables: each step is scheduled rendered, values as text', async () => {
    const id = await aSequence({
      steps: [{ offsetMs: 0, message: aTextMessage('{{name|同学}}：《{{course}}》') }],
    });
    const { status, body } = await post(`/v1/sequences/${id}/enrollments`, {
      openid: 'o-var-1',
      vars: { course: '<a href="https://evil.example">Python 入门</a>' },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ sequenceId: id, openid: 'o-var-1', created: true });
    expect(body.messages).toEqual([{ id: expect.any(String), stepIndex: 0, dueAt: expect.any(String) }]);
    expect(await waitFor(() => texts('o-var-1').length === 1, 10_000)).toBe(true);
    expect(texts('o-var-1')[0].text.content).toBe(
      '同学：《＜a href="https://evil.example"＞Python 入门＜/a＞》',
    );
  });

  it('answers a repeated idempotency key with the first enrollment and writes nothing', async () => {
    const id = await aSequence({});
    const request = { openid: 'o-var-2', vars: { course: 'Go' }, idempotencyKey: 'signup-42' };
    const first = await post(`/v1/sequences/${id}/enrollments`, request);
    const before = await writtenRows(h.db);
    const again = await post(`/v1/sequences/${id}/enrollments`, { ...request, vars: { course: 'other' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, created: false });
    expect(await writtenRows(h.db)).toEqual(before);
  });

  it('refuses a missing variable, a rendered message over WeChat’s limits and bad input, naming each, and writes nothing', async () => {
    const id = await aSequence({});
    const before = await writtenRows(h.db);
    const missing = await post(`/v1/sequences/${id}/enrollments`, {
      openid: 'o-var-3',
      vars: { name: '王' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([
      {
        path: 'vars.course',
        message: 'step 1 uses {{course}}, which has no default: give its value',
        rule: { kind: 'variable_missing', name: 'course', step: 1 },
      },
      {
        path: 'vars.course',
        message: 'step 2 uses {{course}}, which has no default: give its value',
        rule: { kind: 'variable_missing', name: 'course', step: 2 },
      },
    ]);
    const long = await post(`/v1/sequences/${id}/enrollments`, {
      openid: 'o-var-3',
      vars: { course: '课'.repeat(800) },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([
      {
        path: 'steps.0.message.text.content',
        message: expect.stringContaining('2048 bytes'),
        rule: { kind: 'too_big', origin: 'bytes', maximum: 2048, inclusive: true },
      },
    ]);
    for (const bad of [
      { vars: { course: 'x' } },
      { openid: 'o-var-3', vars: { 'bad name': 'x' } },
      { openid: 'o-var-3', vars: { course: 1 } },
      { openid: 'o-var-3', vars: { course: 'x'.repeat(1001) } },
      { openid: 'o-var-3', vars: { course: 'x' }, extra: true },
    ]) {
      expect((await post(`/v1/sequences/${id}/enrollments`, bad)).status).toBe(400);
    }
    expect(await writtenRows(h.db)).toEqual(before);
  });

  it('takes an NDJSON batch, answering each line: enrolled, repeated, or why not', async () => {
    const id = await aSequence({});
    const lines = [
      { openid: 'o-b-1', vars: { course: 'Rust' }, idempotencyKey: 'k1' },
      { openid: 'o-b-2', vars: {} },
      'not json',
      { openid: 'o-b-1', vars: { course: 'Rust' }, idempotencyKey: 'k1' },
    ];
    const res = await h.api(service, `/v1/sequences/${id}/enrollments/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'),
    });
    expect(res.status).toBe(200);
    const answers = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(answers).toEqual([
      expect.objectContaining({ line: 1, ok: true, openid: 'o-b-1', created: true }),
      expect.objectContaining({
        line: 2,
        ok: false,
        error: expect.objectContaining({ code: 'validation_error' }),
      }),
      expect.objectContaining({
        line: 3,
        ok: false,
        error: expect.objectContaining({ code: 'malformed_json' }),
      }),
      expect.objectContaining({ line: 4, ok: true, created: false, enrollmentId: answers[0].enrollmentId }),
      { summary: { lines: 4, accepted: 2, rejected: 2 } },
    ]);
    expect(answers[3].messages).toEqual(answers[0].messages);
  });

  it('answers 404 for an unknown sequence and 409 for one that is not active', async () => {
    expect(
      (await post('/v1/sequences/00000000-0000-4000-8000-000000000000/enrollments', { openid: 'o' })).status,
    ).toBe(404);
    const draft = await aSequence({ status: 'draft' });
    const res = await post(`/v1/sequences/${draft}/enrollments`, {
      openid: 'o-var-4',
      vars: { course: 'Go' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('sequence_not_active');
  });

  it('refuses, at save time, a variable without default in a sequence a push starts', async () => {
    const { status, body } = await post('/v1/sequences', {
      appId: APP_ID,
      name: 'welcome',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 0, message: aTextMessage('欢迎 {{name}}，{{city|朋友}}') }],
    });
    expect(status).toBe(400);
    expect(body.error.details).toEqual([
      {
        path: 'steps.0.message',
        message: expect.stringContaining('{{name}} has no default'),
        rule: { kind: 'variable_without_default', name: 'name' },
      },
    ]);
  });

  it('a push enrollment renders the defaults', async () => {
    const { body } = await post('/v1/sequences', {
      appId: APP_ID,
      name: 'welcome with defaults',
      status: 'active',
      trigger: { type: 'subscribe', scene: 'vars' },
      steps: [{ offsetMs: 0, message: aTextMessage('欢迎 {{name|新朋友}}') }],
    });
    expect(body.status).toBe('active');
    await h.simulator.push('follow', 'o-var-5', { appId: APP_ID, scene: 'vars' });
    expect(await waitFor(() => texts('o-var-5').length === 1, 10_000)).toBe(true);
    expect(texts('o-var-5')[0].text.content).toBe('欢迎 新朋友');
  });
});
