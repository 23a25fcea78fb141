import { randomUUID } from 'node:crypto';
import type { Service } from '../../src/main/start-service';
import { APP_ID, createHarness, type Harness, waitFor } from '../helpers/harness';
import { aMessageRequest, aSimTemplate, aTemplateMessage, aTextMessage } from '../helpers/builders';
import { type RowState, settledRow } from '../helpers/message-rows';

/** The service gives up on WeChat's answer after this long; the simulator answers later than that. */
const WECHAT_TIMEOUT_MS = 300;
const SLOWER_THAN_TIMEOUT_MS = 1500;
/** A second account, opted into at-least-once. */
const AT_LEAST_ONCE_APP_ID = 'wxatleastonce001';

let h: Harness;
let service: Service;

beforeAll(async () => {
  h = await createHarness(
    {
      WECHAT_ACCOUNTS: JSON.stringify([
        { appId: APP_ID, secret: 'test-secret', sendRatePerSecond: 5000, windowPolicy: 'none' },
        {
          appId: AT_LEAST_ONCE_APP_ID,
          secret: 'test-secret-2',
          sendRatePerSecond: 5000,
          windowPolicy: 'none',
          atLeastOnce: true,
        },
      ]),
      WECHAT_TIMEOUT_MS: String(WECHAT_TIMEOUT_MS),
      RETRY_BASE_DELAY_MS: '100',
      RETRY_MAX_DELAY_MS: '400',
      RETRY_MAX_ATTEMPTS: '3',
    },
    { templates: [aSimTemplate()] },
  );
  service = await h.start();
});
afterAll(() => h.close());
afterEach(() => {
  h.simulator.clearFaults();
  h.simulator.resetMessages();
});

async function schedule(request: Parameters<typeof aMessageRequest>[0]): Promise<string> {
  const res = await h.api(service, '/v1/messages', {
    method: 'POST',
    body: JSON.stringify(aMessageRequest(request)),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The row once it reached a final state. */
async function settled(id: string): Promise<RowState> {
  const state = await settledRow(h.db.pool, id, 20_000);
  expect(['queued', 'sending']).not.toContain(state.row.status);
  return state;
}

/** What the simulator recorded for one follower. */
const receivedBy = (openid: string): number =>
  h.simulator.messages().filter((m) => m.openid === openid).length;

async function metric(line: RegExp): Promise<number> {
  const text = await (await fetch(`${service.opsUrl}/metrics`)).text();
  const found = text.split('\n').find((l) => line.test(l));
  return found === undefined ? 0 : Number(found.split(' ').pop());
}

describe('a send whose answer is lost (WeChat received it, its answer came after our timeout)', () => {
  it('records a customer-service message unknown (answer_lost) and does not send it again', async () => {
    h.simulator.setFaults({ latencyMs: SLOWER_THAN_TIMEOUT_MS });
    const openid = `o-lost-${randomUUID()}`;
    const id = await schedule({ openid, message: aTextMessage('once') });
    const { row, attempts } = await settled(id);
    expect(row).toMatchObject({ status: 'unknown', status_reason: 'answer_lost', attempts: 1 });
    expect(attempts).toEqual([{ errcode: null, outcome: 'unknown' }]);
    // The simulator finishes the late send after the service gave up on it: exactly one receipt.
    expect(await waitFor(() => receivedBy(openid) === 1, 5000)).toBe(true);
    expect(
      await metric(/^wechat_drip_messages_unknown_total\{reason="answer_lost"\}/),
    ).toBeGreaterThanOrEqual(1);
  });

  it('retries a template message, which WeChat de-duplicates by client_msg_id: received once, sent', async () => {
    const deduplicatedBefore = h.simulator.stats().deduplicated;
    h.simulator.setFaults({ latencyMs: SLOWER_THAN_TIMEOUT_MS, count: 1 });
    const openid = `o-lost-tpl-${randomUUID()}`;
    const id = await schedule({ openid, channel: 'template', message: aTemplateMessage('once') });
    const { row, attempts } = await settled(id);
    expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    expect(attempts).toEqual([
      { errcode: null, outcome: 'retry' },
      { errcode: 0, outcome: 'sent' },
    ]);
    expect(receivedBy(openid)).toBe(1);
    expect(h.simulator.stats().deduplicated).toBe(deduplicatedBefore + 1);
  });

  it('retries a customer-service message of an atLeastOnce account: delivered, possibly twice', async () => {
    h.simulator.setFaults({ latencyMs: SLOWER_THAN_TIMEOUT_MS, count: 1 });
    const openid = `o-lost-alo-${randomUUID()}`;
    const id = await schedule({ appId: AT_LEAST_ONCE_APP_ID, openid, message: aTextMessage('twice') });
    const { row, attempts } = await settled(id);
    expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    expect(attempts).toEqual([
      { errcode: null, outcome: 'retry' },
      { errcode: 0, outcome: 'sent' },
    ]);
    // The price of at-least-once: the first, late send was received as well.
    expect(await waitFor(() => receivedBy(openid) === 2, 5000)).toBe(true);
  });
});

describe('a send WeChat answered with an error', () => {
  it('still retries -1 (system busy) for a customer-service message and delivers it once', async () => {
    h.simulator.setFaults({ forceErrcode: -1, count: 1 });
    const openid = `o-busy-${randomUUID()}`;
    const id = await schedule({ openid, message: aTextMessage('busy') });
    const { row } = await settled(id);
    expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    expect(receivedBy(openid)).toBe(1);
  });
});
