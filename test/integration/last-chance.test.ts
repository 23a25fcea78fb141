import type { SequenceResults } from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { anOpenid, aTextMessage, type SequenceRequest } from '../helpers/builders';
import { createSequence, expectEventually, receivedTexts, SHORT_WINDOWS } from '../helpers/drip';

/**
 * Issue 25, item 2: the window's last chance — a step timed by the end of the follower's contact window,
 * moved by each new interaction, counted as recovered when the follower comes back after it. A user
 * message opens a 20 s window here (SHORT_WINDOWS); the step goes out 15 s before it closes: 5 s after.
 */
const ACCOUNT = {
  appId: APP_ID,
  secret: 'test-secret',
  token: 'lastchancetoken',
  windowPolicy: SHORT_WINDOWS,
};
const LEAD_MS = 15_000;
const WINDOW_MS = SHORT_WINDOWS.message.windowMs;

let h: Harness;
let service: Service;
beforeAll(async () => {
  h = await createHarness({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) }, { enforceContactWindow: true });
  service = await h.start();
}, 60_000);
afterAll(() => h.close());

/** A follower writing `keyword` gets "<keyword> hello" now and "<keyword> last" 15 s before their window closes. */
const aLastChance = (keyword: string, extra: Partial<SequenceRequest> = {}): Partial<SequenceRequest> => ({
  name: `last chance ${keyword}`,
  trigger: { type: 'keyword', keyword },
  steps: [
    { offsetMs: 0, message: aTextMessage(`${keyword} hello`) },
    { beforeWindowCloseMs: LEAD_MS, message: aTextMessage(`${keyword} last`) },
  ],
  ...extra,
});

interface Row {
  status: string;
  status_reason: string | null;
  due_at: Date;
}
const lastChanceRows = async (openid: string): Promise<Row[]> =>
  (
    await h.db.pool.query<Row>(
      `SELECT status, status_reason, due_at FROM scheduled_messages
       WHERE app_id = $1 AND openid = $2 AND step_index = 1 ORDER BY created_at, seq`,
      [APP_ID, openid],
    )
  ).rows;
const pushTimes = async (openid: string): Promise<Date[]> =>
  (
    await h.db.pool.query<{ received_at: Date }>(
      `SELECT received_at FROM webhook_pushes WHERE app_id = $1 AND openid = $2 ORDER BY id`,
      [APP_ID, openid],
    )
  ).rows.map((r) => r.received_at);
const results = async (id: string) =>
  (await (await h.api(service, `/v1/sequences/${id}/results`)).json()) as SequenceResults;
const write = (openid: string, content: string) =>
  h.simulator.push('message', openid, { appId: APP_ID, content });

describe('the window’s last chance', () => {
  it('goes out the lead before the window the message opened closes', async () => {
    const id = await createSequence(h, service, aLastChance('lcsent'));
    const openid = anOpenid('lcsent');
    await write(openid, 'lcsent please');
    await expectEventually('lcsent last', () => receivedTexts(h, openid).includes('lcsent last'), 15_000);
    const [pushed] = await pushTimes(openid);
    expect(
      (await lastChanceRows(openid)).map((r) => [r.status, r.due_at.getTime() - pushed.getTime()]),
    ).toEqual([['sent', WINDOW_MS - LEAD_MS]]);
    expect(receivedTexts(h, openid)).toEqual(['lcsent hello', 'lcsent last']);
    expect((await results(id)).steps[1].lastChance).toEqual({ moved: 0, recovered: 0 });
  });

  it('moves when the follower writes again, and goes out once, by the new window', async () => {
    const id = await createSequence(h, service, aLastChance('lcmove'));
    const openid = anOpenid('lcmove');
    await write(openid, 'lcmove please');
    await expectEventually('lcmove hello', () => receivedTexts(h, openid).includes('lcmove hello'));
    await write(openid, 'one more question');
    await expectEventually('the move', async () => (await lastChanceRows(openid)).length === 2);
    const [, second] = await pushTimes(openid);
    const [old, moved] = await lastChanceRows(openid);
    expect([old.status, old.status_reason]).toEqual(['cancelled', 'moved:window']);
    expect(moved.due_at.getTime() - second.getTime()).toBe(WINDOW_MS - LEAD_MS);
    await expectEventually('lcmove last', () => receivedTexts(h, openid).includes('lcmove last'), 15_000);
    await expectNothingMore('a second last chance', () => receivedTexts(h, openid).length > 2, 2000);
    const step = (await results(id)).steps[1];
    expect([step.scheduled, step.sent, step.cancelled, step.lastChance]).toEqual([
      1,
      1,
      0,
      { moved: 1, recovered: 0 },
    ]);
  });

  it('counts the follower who writes after it as recovered; nothing moves then', async () => {
    const id = await createSequence(h, service, aLastChance('lcback'));
    const openid = anOpenid('lcback');
    await write(openid, 'lcback please');
    await expectEventually('lcback last', () => receivedTexts(h, openid).includes('lcback last'), 15_000);
    await write(openid, 'thanks, I am back');
    await expectEventually(
      'the recovery counted',
      async () => (await results(id)).steps[1].lastChance?.recovered === 1,
    );
    expect((await results(id)).steps[1].lastChance).toEqual({ moved: 0, recovered: 1 });
    expect(await lastChanceRows(openid)).toHaveLength(1);
  });

  it('an exit in the same message ends it: not moved, never sent', async () => {
    await createSequence(
      h,
      service,
      aLastChance('lcexit', { exits: [{ type: 'message', keyword: 'stop' }] }),
    );
    const openid = anOpenid('lcexit');
    await write(openid, 'lcexit please');
    await expectEventually('lcexit hello', () => receivedTexts(h, openid).includes('lcexit hello'));
    await write(openid, 'stop it');
    await expectNothingMore(
      'the last chance after the exit',
      () => receivedTexts(h, openid).length > 1,
      7000,
    );
    expect((await lastChanceRows(openid)).map((r) => r.status)).toEqual(['cancelled']);
  });

  it('an unfollow erases it: no openid, no content, settled', async () => {
    await createSequence(h, service, aLastChance('lcgone'));
    const openid = anOpenid('lcgone');
    await write(openid, 'lcgone please');
    await expectEventually('lcgone hello', () => receivedTexts(h, openid).includes('lcgone hello'));
    await h.simulator.push('unfollow', openid, { appId: APP_ID });
    await expectEventually('the erasure', async () => {
      const { rows } = await h.db.pool.query(
        `SELECT l.openid, l.payload, l.settled_at IS NOT NULL AS settled FROM last_chance_steps l
         JOIN sequences s ON s.id = l.sequence_id WHERE s.name = 'last chance lcgone'`,
      );
      return JSON.stringify(rows) === JSON.stringify([{ openid: '', payload: {}, settled: true }]);
    });
    await expectNothingMore(
      'the last chance after the unfollow',
      () => receivedTexts(h, openid).length > 1,
      6000,
    );
  });
});
