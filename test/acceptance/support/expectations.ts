import type { Answer } from './http';
import type { ApiClient } from './api-client';
import type { SimulatorClient } from './simulator-client';
import type { ErrorBody, MessageView } from './types';
import { aMessageRequest, aTextMessage } from './builders';
import { waitFor } from './wait-for';

/** Statuses a message does not leave. */
export const FINAL_STATUSES = ['sent', 'skipped', 'failed', 'cancelled', 'unknown'] as const;

/** Waits until `GET /v1/messages/:id` shows `status`; returns the message as it read then. */
export async function untilStatus(
  api: ApiClient,
  id: string,
  status: string,
  timeoutMs = 15_000,
): Promise<MessageView> {
  return waitFor(
    async () => {
      const m = await api.message(id);
      return m.status === status ? m : undefined;
    },
    `message ${id} to be ${status}`,
    { timeoutMs },
  );
}

/** Waits until the message reaches a final status; returns it. */
export async function untilFinal(api: ApiClient, id: string, timeoutMs = 15_000): Promise<MessageView> {
  return waitFor(
    async () => {
      const m = await api.message(id);
      return (FINAL_STATUSES as readonly string[]).includes(m.status) ? m : undefined;
    },
    `message ${id} to reach a final status`,
    { timeoutMs },
  );
}

/**
 * Asserts docs/api.md "HTTP API"'s error contract: a 4xx (`status` when given) with a JSON body
 * `{error:{code,message,details?}}` whose message or details name `field`.
 */
export function expectRejected(answer: Answer, field: string, status?: number): ErrorBody {
  const summary = `${answer.status} ${answer.text.slice(0, 400)}`;
  if (status !== undefined) expect(summary).toMatch(new RegExp(`^${status} `));
  expect(answer.status >= 400 && answer.status < 500 ? 'a 4xx' : summary).toBe('a 4xx');
  const body = answer.body as ErrorBody;
  expect(body).toEqual({
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
  const named = `${body.error.message} ${JSON.stringify(body.error.details ?? null)}`;
  expect(named.includes(field) ? field : `error naming ${field}: ${named}`).toBe(field);
  return body;
}

/** Waits until the simulator's record shows `openid` received a text message with `content`. */
export async function untilReceived(
  sim: SimulatorClient,
  openid: string,
  content: string,
  timeoutMs = 15_000,
): Promise<void> {
  await waitFor(
    async () => (await sim.texts(openid)).includes(content),
    `${openid} to receive "${content}"`,
    {
      timeoutMs,
    },
  );
}

/**
 * Schedules a text "marker" to `openid` through the API, `delayMs` from now, and waits until it arrives:
 * anything due before it has been handled by then — the way to prove that nothing else was sent.
 */
export async function untilMarker(
  api: ApiClient,
  sim: SimulatorClient,
  openid: string,
  delayMs: number,
): Promise<void> {
  await api.schedule(aMessageRequest({ openid, delayMs, message: aTextMessage('marker') }));
  await untilReceived(sim, openid, 'marker');
}
