import type { z } from 'zod';
import {
  accountViewSchema,
  followerEventViewSchema,
  followerTimelineSchema,
  messageDetailSchema,
  messageViewSchema,
  platformViewSchema,
  sequenceResultsSchema,
  sequenceViewSchema,
} from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { aMessageRequest, anOpenid, aSequence } from '../helpers/builders';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({
    ROLE: 'api',
    WECHAT_ACCOUNTS: JSON.stringify([{ appId: APP_ID, secret: 'test-secret', windowPolicy: 'official' }]),
  });
  api = await h.start();
});
afterAll(() => h.close());

/** The JSON of a 2xx answer to `path`. */
async function answer(path: string, init: { method: string; body: unknown } | null = null): Promise<unknown> {
  const res = await h.api(api, path, init ? { method: init.method, body: JSON.stringify(init.body) } : {});
  expect(res.status).toBeLessThan(300);
  return res.json();
}

/**
 * The answer has exactly the contract's shape: parsing keeps every field the schema names and drops the
 * others, so an answer with a field missing, mistyped (a Date's JSON where a number is due) or unknown to
 * the contract differs from its parsed self.
 */
function expectShape(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(parsed.data).toEqual(body);
}

describe('the /v1 answers match the contract the admin app is typed by', () => {
  it('GET /v1/accounts lists accounts in the account shape', async () => {
    const { accounts } = (await answer('/v1/accounts')) as { accounts: unknown[] };
    expect(accounts).toHaveLength(1);
    for (const account of accounts) expectShape(accountViewSchema, account);
  });

  it('GET /v1/platform has the platform shape: not configured here', async () => {
    const platform = await answer('/v1/platform');
    expectShape(platformViewSchema, platform);
    expect(platform).toEqual({ configured: false, callbackPath: null });
  });

  it('a message created, read and looked up through its follower has the message shapes', async () => {
    const openid = anOpenid();
    const created = (await answer('/v1/messages', {
      method: 'POST',
      body: aMessageRequest({ openid, delayMs: 60_000, cancelKey: 'k-1' }),
    })) as { id: string };
    expectShape(messageViewSchema, created);
    expectShape(messageDetailSchema, await answer(`/v1/messages/${created.id}`));
    const timeline = (await answer(`/v1/followers/${APP_ID}/${openid}`)) as { messages: unknown[] };
    expect(timeline.messages).toHaveLength(1);
    expectShape(followerTimelineSchema, timeline);
  });

  it('a sequence, its detail, a status change and its results have the sequence shapes', async () => {
    const created = (await answer('/v1/sequences', {
      method: 'POST',
      body: aSequence({ status: 'draft' }),
    })) as {
      id: string;
    };
    expectShape(sequenceViewSchema, created);
    expectShape(sequenceViewSchema, await answer(`/v1/sequences/${created.id}`));
    expectShape(
      sequenceViewSchema,
      await answer(`/v1/sequences/${created.id}/activate`, { method: 'POST', body: {} }),
    );
    expectShape(sequenceResultsSchema, await answer(`/v1/sequences/${created.id}/results`));
  });

  it('a posted follower event, first and repeated, has the event shape', async () => {
    await answer('/v1/sequences', {
      method: 'POST',
      body: aSequence({ trigger: { type: 'event', name: 'course_signup' } }),
    });
    const path = `/v1/followers/${APP_ID}/${anOpenid()}/events`;
    const body = { name: 'course_signup', idempotencyKey: 'signup-1' };
    const first = await answer(path, { method: 'POST', body });
    expectShape(followerEventViewSchema, first);
    expect(first).toMatchObject({ enrolled: [{ steps: 1 }] });
    expectShape(followerEventViewSchema, await answer(path, { method: 'POST', body }));
  });
});
