import { randomUUID } from 'node:crypto';
import type { Service } from '../../src/main/start-service';
import { createHarness, type Harness, waitFor } from '../helpers/harness';
import { aMessageRequest, aTextMessage } from '../helpers/builders';

/** The service gives up on WeChat's answer after this long; the simulator answers later than that. */
const WECHAT_TIMEOUT_MS = 300;
const SLOWER_THAN_TIMEOUT_MS = 1500;

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness({
    WECHAT_TIMEOUT_MS: String(WECHAT_TIMEOUT_MS),
    RETRY_BASE_DELAY_MS: '100',
    RETRY_MAX_DELAY_MS: '400',
    RETRY_MAX_ATTEMPTS: '3',
  });
  service = await h.start();
});
afterAll(() => h.close());
afterEach(() => {
  h.simulator.clearFaults();
  h.simulator.resetMessages();
});

async function schedule(tag: string): Promise<string> {
  const res = await h.api(service, '/v1/messages', {
    method: 'POST',
    body: JSON.stringify(aMessageRequest({ openid: 'o-lost-answer', message: aTextMessage(tag) })),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function rowOf(
  id: string,
): Promise<{ status: string; status_reason: string | null; attempts: number }> {
  const { rows } = await h.db.pool.query<{ status: string; status_reason: string | null; attempts: number }>(
    'SELECT status, status_reason, attempts FROM scheduled_messages WHERE id = $1',
    [id],
  );
  return rows[0];
}

const received = (tag: string): number =>
  h.simulator.messages().filter((m) => (m.body as { text?: { content: string } }).text?.content === tag)
    .length;

describe('a customer-service send whose answer is lost', () => {
  it('reproduces: WeChat received it, the answer timed out, and it was sent again', async () => {
    // Every send is accepted by the simulator, but answered after the service stopped waiting.
    h.simulator.setFaults({ latencyMs: SLOWER_THAN_TIMEOUT_MS });
    const tag = randomUUID();
    const id = await schedule(tag);
    const final = (s: string): boolean => !['pending', 'queued', 'sending'].includes(s);
    await waitFor(async () => final((await rowOf(id)).status), 20_000);
    const row = await rowOf(id);
    // Wait for the simulator to finish the last (late) send before counting.
    await waitFor(() => received(tag) === row.attempts, 5000);
    expect(row).toMatchObject({ status: 'failed', attempts: 3 });
    expect(received(tag)).toBe(3);
  });
});
