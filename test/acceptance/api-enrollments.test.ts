import { aSequence, aStep, aTextMessage } from './support/builders';
import { waitFor } from './support/wait-for';
import { APP_ID, startWorld, type World } from './support/world';

// docs/sequences.md "API enrollment and variables": another system enrolls followers into a sequence with
// variables; each step arrives with them filled in, as text.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'enrollments', enforceWindow: false });
}, 60_000);
afterAll(() => world?.close(), 30_000);

describe('API enrollment and variables', () => {
  it('1,000 followers enrolled in one NDJSON batch each receive their step with their {{course}}', async () => {
    const created = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'api' },
        steps: [aStep({ message: aTextMessage('{{name|同学}}，《{{course}}》明天 9:00 开课') })],
      }),
    });
    expect(created.status).toBe(201);
    const lines = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({
        openid: `o-enrol-${i}`,
        vars: { course: `课程 ${i}` },
        idempotencyKey: `signup-${i}`,
      }),
    );
    const answer = await world.api(`/v1/sequences/${created.body.id}/enrollments/batch`, {
      body: lines.join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(answer.text.trim().split('\n').at(-1)).toBe(
      JSON.stringify({ summary: { lines: 1000, accepted: 1000, rejected: 0 } }),
    );

    const received = await waitFor(
      async () => {
        const all = await world.sim.messages();
        return all.length >= 1000 ? all : undefined;
      },
      'all 1,000 steps at the simulator',
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(received).toHaveLength(1000);
    for (const m of received) {
      const i = Number(m.openid.slice('o-enrol-'.length));
      expect(m.body.text.content).toBe(`同学，《课程 ${i}》明天 9:00 开课`);
    }
  });

  it('refuses an enrollment whose variable has neither value nor default, naming it, and sends nothing', async () => {
    const { body: sequence } = await world.api('/v1/sequences', {
      json: aSequence({
        appId: APP_ID,
        trigger: { type: 'api' },
        steps: [aStep({ message: aTextMessage('《{{course}}》') })],
      }),
    });
    const res = await world.api(`/v1/sequences/${sequence.id}/enrollments`, { json: { openid: 'o-novar' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        path: 'vars.course',
        message: expect.stringContaining('{{course}}'),
        rule: { kind: 'variable_missing', name: 'course', step: 1 },
      },
    ]);
    expect(await world.sim.messages('o-novar')).toEqual([]);
  });

  it('a variable in a link is encoded: the link keeps the origin written in the sequence, and a variable inside an origin is refused at save time', async () => {
    const news = (url: string) => ({
      msgtype: 'news',
      news: { articles: [{ title: '{{title|新品}}', url, picurl: 'https://img.example/{{path}}.png' }] },
    });
    const inOrigin = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'api' },
        steps: [aStep({ message: news('https://shop.example{{path}}') })],
      }),
    });
    expect(inOrigin.status).toBe(400);
    expect(inOrigin.body.error.details).toEqual([
      {
        path: 'steps.0.message.news.articles.0.url',
        message: expect.stringContaining('origin'),
        rule: { kind: 'variable_in_origin' },
      },
    ]);

    const { body: sequence } = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'api' },
        steps: [aStep({ message: news('https://shop.example/p/{{path}}?from={{from}}') })],
      }),
    });
    const vars = { path: '@evil.example/phish', from: 'mail&admin=1' };
    const res = await world.api(`/v1/sequences/${sequence.id}/enrollments`, {
      json: { openid: 'o-link', vars },
    });
    expect(res.status).toBe(201);
    const [sent] = await waitFor(async () => {
      const all = await world.sim.messages('o-link');
      return all.length > 0 ? all : undefined;
    }, 'the step at the simulator');
    const [article] = sent.body.news.articles as { url: string; picurl: string }[];
    const link = new URL(article.url);
    expect(link.origin).toBe('https://shop.example');
    expect(link.pathname).toBe('/p/%40evil.example%2Fphish');
    expect(Object.fromEntries(link.searchParams)).toEqual({ from: 'mail&admin=1' });
    expect(new URL(article.picurl).origin).toBe('https://img.example');
  });
});
