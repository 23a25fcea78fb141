import { aSequence, aTextMessage } from './support/builders';
import { waitFor } from './support/wait-for';
import { startWorld, type World } from './support/world';

// docs/sequences.md "A/B steps": each enrollment gets one variant of a step, the same for a follower every time, and
// the results count per variant.
let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'ab-steps', enforceWindow: false });
}, 60_000);
afterAll(() => world?.close(), 30_000);

const FOLLOWERS = Array.from({ length: 200 }, (_, i) => `o-ab-${i}`);
const TEXTS: Record<string, string> = { A: '明天开课，记得准时参加', B: '明天开课，点此查看课表' };

/** Enrolls every follower once more, in one NDJSON batch. */
async function enrollAll(sequenceId: string): Promise<void> {
  const answer = await world.api(`/v1/sequences/${sequenceId}/enrollments/batch`, {
    body: FOLLOWERS.map((openid) => JSON.stringify({ openid })).join('\n'),
    headers: { 'content-type': 'application/x-ndjson' },
  });
  expect(answer.text.trim().split('\n').at(-1)).toBe(
    JSON.stringify({ summary: { lines: 200, accepted: 200, rejected: 0 } }),
  );
}

/** What each follower received, once `total` messages are at the simulator. */
async function receivedBy(total: number): Promise<Map<string, string[]>> {
  const all = await waitFor(
    async () => {
      const messages = await world.sim.messages();
      return messages.length >= total ? messages : undefined;
    },
    `${total} messages at the simulator`,
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  expect(all).toHaveLength(total);
  const byFollower = new Map<string, string[]>();
  for (const m of all) byFollower.set(m.openid, [...(byFollower.get(m.openid) ?? []), m.body.text.content]);
  return byFollower;
}

describe('A/B steps', () => {
  it('200 followers get one variant each of a 50/50 step, the same one again on a second enrollment; results add up', async () => {
    const created = await world.api('/v1/sequences', {
      json: aSequence({
        trigger: { type: 'api' },
        steps: [
          {
            offsetMs: 0,
            variants: Object.entries(TEXTS).map(([name, text]) => ({
              name,
              weight: 1,
              message: aTextMessage(text),
            })),
          },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    await enrollAll(id);
    const first = await receivedBy(200);
    const gotA = FOLLOWERS.filter((o) => first.get(o)?.[0] === TEXTS.A).length;
    const gotB = FOLLOWERS.filter((o) => first.get(o)?.[0] === TEXTS.B).length;
    expect(gotA + gotB).toBe(200);
    // 50/50 over 200 followers: far outside 60–140 only by a broken assignment.
    expect(gotA).toBeGreaterThan(60);
    expect(gotB).toBeGreaterThan(60);

    await enrollAll(id);
    const both = await receivedBy(400);
    for (const openid of FOLLOWERS)
      expect(both.get(openid)).toEqual([first.get(openid)![0], first.get(openid)![0]]);

    const results = await world.api(`/v1/sequences/${id}/results`);
    const [step] = results.body.steps;
    expect(step.variants).toEqual([
      expect.objectContaining({ name: 'A', scheduled: 2 * gotA, sent: 2 * gotA, skipped: 0, failed: 0 }),
      expect.objectContaining({ name: 'B', scheduled: 2 * gotB, sent: 2 * gotB, skipped: 0, failed: 0 }),
    ]);
    expect(step.variants[0].scheduled + step.variants[1].scheduled).toBe(step.scheduled);
    expect(results.body.enrolled).toBe(400);
  });
});
