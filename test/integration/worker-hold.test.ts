import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Service } from '../../src/main/start-service';
import { aMessageRequest, aTextMessage } from '../helpers/builders';
import { expectNothingMore } from '../helpers/expect-nothing-more';
import { createHarness, freePort, type Harness, waitFor } from '../helpers/harness';
import { spawnRole, withSearchPath } from '../helpers/services';

/**
 * The levels deliver a wake-up two to three units early and the worker holds it, unacknowledged, until its
 * due time. With a 1 s unit a wake-up due in 3.5 s waits one unit in the levels and is then held for about
 * 2.5 s, so the tests below act while it is surely held.
 */
const UNIT_MS = 1000;

let h: Harness;
/** Worker processes a test spawned: killed if the test left one running, before the harness closes. */
const workers: ChildProcess[] = [];
afterEach(() => {
  for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  return h?.close();
});

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
const sentTagged = (tag: string) =>
  h.simulator.messages().filter((m) => (m.body as { text: { content: string } }).text.content === tag);

async function schedule(api: Service, tag: string, dueAt: number): Promise<string> {
  const res = await h.api(api, '/v1/messages', {
    method: 'POST',
    body: JSON.stringify(
      aMessageRequest({ message: aTextMessage(tag), sendAt: new Date(dueAt).toISOString() }),
    ),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function statusOf(id: string): Promise<string> {
  const { rows } = await h.db.pool.query('SELECT status FROM scheduled_messages WHERE id = $1', [id]);
  return rows[0].status as string;
}

describe('the worker holds a wake-up that came early, until its due time', () => {
  it("sends at the due time, never before, late only by the worker's own share (100 ms unit, loaded machine)", async () => {
    h = await createHarness();
    const service = await h.start();
    const start = Date.now() + 1500;
    // 60 ms apart: one wake-up each, so this measures the hold and the worker, not the grouping.
    const due = new Map<string, number>(Array.from({ length: 30 }, (_, i) => [randomUUID(), start + 60 * i]));
    const body = [...due]
      .map(([tag, at]) =>
        JSON.stringify(aMessageRequest({ message: aTextMessage(tag), sendAt: new Date(at).toISOString() })),
      )
      .join('\n');
    const res = await h.api(service, '/v1/messages/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
    });
    expect(res.status).toBe(200);
    expect(Date.now()).toBeLessThan(start - 500); // scheduled in time: the lateness below is the delivery's

    expect(await waitFor(() => h.simulator.messages().length === due.size, 60 * 30 + 10_000)).toBe(true);
    const lateness = h.simulator
      .messages()
      .map((m) => m.receivedAt - due.get((m.body as { text: { content: string } }).text.content)!)
      .sort((a, b) => a - b);
    expect(lateness[0]).toBeGreaterThanOrEqual(0);
    // Due → wake-up in hand (the broker and the hold): the lateness less the worker's own share, which its
    // histogram measures (claim, send; the simulator shares this process, so a loaded machine stretches
    // it). Before the hold, rounding up to the unit (50 ms on average) and the hops (40+ ms) were here.
    // The worker observes a message's pipeline time once its outcome is recorded, just after WeChat got it.
    const recorded = async () => (await service.metrics.pipeline.get()).values;
    const countOf = (values: Awaited<ReturnType<typeof recorded>>) =>
      values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
    expect(await waitFor(async () => countOf(await recorded()) === due.size, 10_000)).toBe(true);
    const pipeline = await service.metrics.pipeline.get();
    const total = (name: string) => pipeline.values.find((v) => v.metricName === name)!.value;
    const workerMeanMs = (1000 * total(`${pipeline.name}_sum`)) / total(`${pipeline.name}_count`);
    const meanMs = lateness.reduce((n, ms) => n + ms, 0) / lateness.length;
    expect(total(`${pipeline.name}_count`)).toBe(due.size);
    expect(meanMs - workerMeanMs).toBeLessThanOrEqual(25);
    // End to end: p50 ≈ 10 ms on an idle machine, 15–30 ms with its 2 cores loaded 6× over, 230 ms seen
    // beside the fault suite and a CPU hog in CI. The claim is the line above (what the hold adds beyond
    // the worker's own measured time); this one only catches a hold that waits seconds.
    expect(lateness[Math.floor(lateness.length / 2)]).toBeLessThanOrEqual(1000);
  }, 30_000);

  it('a cancellation made while the wake-up is held still wins at the due time', async () => {
    h = await createHarness({ LEVELS_UNIT_MS: String(UNIT_MS) });
    const service = await h.start();
    const dueAt = Date.now() + 3500;
    const id = await schedule(service, randomUUID(), dueAt);

    await sleepUntil(dueAt - 300);
    expect((await h.api(service, `/v1/messages/${id}`, { method: 'DELETE' })).status).toBe(200);

    await sleepUntil(dueAt);
    expect(await waitFor(async () => (await statusOf(id)) === 'cancelled', 5000)).toBe(true);
    await expectNothingMore('a send of the cancelled message', () => h.simulator.messages().length > 0, 500);
  }, 30_000);

  it('a worker killed while holding: the broker redelivers, another worker sends it once, not early', async () => {
    const { worker, id, tag, dueAt } = await aWorkerHolding();
    worker.kill('SIGKILL');
    await exitOf(worker);
    expect(await statusOf(id)).toBe('queued');

    await expectSentOnceByAnotherWorker(tag, dueAt);
  }, 30_000);

  it('SIGTERM while holding: the worker hands the wake-up back and exits 0 at once; another sends it once', async () => {
    const { worker, id, tag, dueAt } = await aWorkerHolding();
    worker.kill('SIGTERM');
    expect(await exitOf(worker)).toBe(0);
    expect(Date.now()).toBeLessThan(dueAt); // it did not wait out the hold
    expect(await statusOf(id)).toBe('queued');
    expect(sentTagged(tag)).toHaveLength(0);

    await expectSentOnceByAnotherWorker(tag, dueAt);
  }, 30_000);
});

/**
 * A worker process (its /readyz answered) and a message due in 3.5 s, returned 700 ms before the due time:
 * with a 1 s unit the wake-up waited one unit in the levels, so the worker holds it now.
 */
async function aWorkerHolding(): Promise<{ worker: ChildProcess; id: string; tag: string; dueAt: number }> {
  h = await createHarness({ LEVELS_UNIT_MS: String(UNIT_MS) });
  const api = await h.start({ ROLE: 'api' });
  const port = await freePort();
  const worker = spawnRole('worker', {
    ...h.env,
    ROLE: 'worker',
    OPS_PORT: String(port),
    DATABASE_URL: withSearchPath(h.env.DATABASE_URL, h.db.schema),
  });
  workers.push(worker);
  const ready = async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok === true;
  expect(await waitFor(ready, 10_000)).toBe(true);
  const tag = randomUUID();
  const dueAt = Date.now() + 3500;
  const id = await schedule(api, tag, dueAt);
  await sleepUntil(dueAt - 700);
  return { worker, id, tag, dueAt };
}

/** A worker started now sends the message once, and not before its due time. */
async function expectSentOnceByAnotherWorker(tag: string, dueAt: number): Promise<void> {
  await h.start({ ROLE: 'worker' });
  expect(await waitFor(() => sentTagged(tag).length === 1, 10_000)).toBe(true);
  expect(sentTagged(tag)[0].receivedAt).toBeGreaterThanOrEqual(dueAt);
  await expectNothingMore('a second send', () => sentTagged(tag).length > 1, 1000);
}
