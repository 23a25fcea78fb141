import type { SequenceResults } from '../../src/contract';
import { chooseVariant } from '../../src/sequences/choose-variant';
import { APP_ID, useStartedService, writtenRows } from '../helpers/harness';
import { aTextMessage } from '../helpers/builders';
import { createSequence, expectEventually, receivedTexts } from '../helpers/drip';

// Enrollments through the API open no window: with no window policy their steps go out all the same.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'abtoken', windowPolicy: 'none' };

const started = useStartedService({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });

const send = async (method: string, path: string, body?: unknown) => {
  const res = await started.h.api(started.service, path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

const abStep = {
  offsetMs: 0,
  variants: [
    { name: 'A', weight: 1, message: aTextMessage('hello A'), fallback: null },
    { name: 'B', weight: 1, message: aTextMessage('hello B'), fallback: null },
  ],
};
const OPENIDS = Array.from({ length: 20 }, (_, i) => `o-ab-follower-${i}`);

describe('A/B steps', () => {
  it('each enrollment gets its follower’s variant, recorded on the row; results count per variant', async () => {
    const id = await createSequence(started.h, started.service, {
      name: 'ab drip',
      trigger: { type: 'api' },
      steps: [abStep, { offsetMs: 60_000, message: aTextMessage('later') }],
      exits: [{ type: 'event', name: 'purchased' }],
    });
    for (const openid of OPENIDS) {
      expect((await send('POST', `/v1/sequences/${id}/enrollments`, { openid })).status).toBe(201);
    }
    const expected = new Map(
      OPENIDS.map((openid) => [
        openid,
        chooseVariant(abStep, { sequenceId: id, stepIndex: 0, openid }).variant,
      ]),
    );
    expect(new Set(expected.values())).toEqual(new Set(['A', 'B']));

    const { rows } = await started.h.db.pool.query<{
      openid: string;
      step_index: number;
      variant: string | null;
    }>(`SELECT openid, step_index, variant FROM scheduled_messages WHERE sequence_id = $1`, [id]);
    for (const r of rows) expect(r.variant).toBe(r.step_index === 0 ? expected.get(r.openid) : null);
    await expectEventually('every first step sent', () =>
      OPENIDS.every((openid) => receivedTexts(started.h, openid).length === 1),
    );
    for (const openid of OPENIDS)
      expect(receivedTexts(started.h, openid)).toEqual([`hello ${expected.get(openid)}`]);

    const exiting = OPENIDS.slice(0, 5);
    for (const openid of exiting) {
      expect(
        (await send('POST', `/v1/followers/${APP_ID}/${openid}/events`, { name: 'purchased' })).status,
      ).toBe(201);
    }
    const results = (await send('GET', `/v1/sequences/${id}/results`)).body as SequenceResults;
    const count = (name: string, among = OPENIDS) => among.filter((o) => expected.get(o) === name).length;
    const variant = (name: string) => ({
      name,
      scheduled: count(name),
      pending: 0,
      sent: count(name),
      skipped: 0,
      failed: 0,
      cancelled: 0,
      unknown: 0,
      exitedAfter: count(name, exiting),
    });
    expect(results.steps[0].variants).toEqual([variant('A'), variant('B')]);
    expect(results.steps[1].variants).toBeUndefined();
    expect(results.steps[1].cancelled).toBe(exiting.length);
  });

  it('a test send of an A/B step sends the variant that follower would get', async () => {
    const id = await createSequence(started.h, started.service, {
      name: 'ab test send',
      trigger: { type: 'api' },
      steps: [abStep],
    });
    for (const openid of ['o-ab-try-1', 'o-ab-try-2', 'o-ab-try-3']) {
      const tried = await send('POST', `/v1/sequences/${id}/test-send`, { openid, stepIndex: 0 });
      expect(tried.status).toBe(201);
      const { variant } = chooseVariant(abStep, { sequenceId: id, stepIndex: 0, openid });
      await expectEventually(
        `the test send to ${openid}`,
        () => receivedTexts(started.h, openid).length === 1,
      );
      expect(receivedTexts(started.h, openid)).toEqual([`hello ${variant}`]);
    }
  });

  it('refuses bad variants with a 400 naming the field, and writes nothing', async () => {
    const before = await writtenRows(started.h.db);
    const [a] = abStep.variants;
    for (const [variants, path] of [
      [[a, { ...a, name: 'B', weight: 0 }], 'steps.0.variants.1.weight'],
      [[a, a], 'steps.0.variants.1.name'],
      [[a], 'steps.0.variants'],
    ] as const) {
      const res = await send('POST', '/v1/sequences', {
        appId: APP_ID,
        name: 'bad ab',
        trigger: { type: 'api' },
        steps: [{ offsetMs: 0, variants }],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([expect.objectContaining({ path })]);
    }
    expect(await writtenRows(started.h.db)).toEqual(before);
  });
});
