import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createHarness, type Harness, waitFor } from '../helpers/harness';
import { spawnRole, withSearchPath } from '../helpers/services';
import { aMessageRequest, aTextMessage } from '../helpers/builders';

let h: Harness;
afterEach(() => h?.close());

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

describe('graceful shutdown', () => {
  it('SIGTERM mid-burst: the worker finishes what it claimed, hands back the rest, exits 0; nothing lost or sent twice', async () => {
    h = await createHarness({ ROLE: 'api' });
    const api = await h.start();
    h.simulator.setFaults({ latencyMs: 100 });
    const env = {
      ...h.env,
      ROLE: 'worker',
      DATABASE_URL: withSearchPath(h.env.DATABASE_URL, h.db.schema),
      WORKER_BATCH_SIZE: '20',
    };
    const tags = Array.from({ length: 300 }, () => randomUUID());
    const body = tags
      .map((tag) =>
        JSON.stringify(
          aMessageRequest({
            openid: 'o-term',
            message: aTextMessage(tag),
          }),
        ),
      )
      .join('\n');
    await h.api(api, '/v1/messages/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
    });

    const first = spawnRole('worker', env);
    await waitFor(() => h.simulator.stats().received >= 50, 20_000, 10);
    first.kill('SIGTERM');
    expect(await exitOf(first)).toBe(0);
    const { rows: sending } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM scheduled_messages WHERE status = 'sending'`,
    );
    expect(sending[0].n).toBe(0); // nothing stranded mid-send
    expect(h.simulator.stats().received).toBeLessThan(300); // it did stop mid-burst

    const second = spawnRole('worker', env);
    try {
      const done = await waitFor(
        async () => {
          const { rows } = await h.db.pool.query(
            `SELECT count(*)::int AS n FROM scheduled_messages WHERE status = 'sent'`,
          );
          return rows[0].n === 300;
        },
        30_000,
        200,
      );
      expect(done).toBe(true);
    } finally {
      second.kill('SIGTERM');
      expect(await exitOf(second)).toBe(0);
    }
    const counts = new Map<string, number>();
    for (const m of h.simulator.messages()) {
      const tag = (m.body as { text: { content: string } }).text.content;
      counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    expect(tags.filter((t) => counts.get(t) !== 1)).toEqual([]);
  }, 60_000);
});
