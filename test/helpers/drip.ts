import type { Service } from '../../src/main/start-service';
import { aSequence, aTextMessage, type SequenceRequest, type StepRequest } from './builders';
import { APP_ID, type Harness, waitFor } from './harness';

const rule = (count: number, windowMs: number) => ({ count, windowMs });

/**
 * Short contact windows, so that a "48 h" drip runs in seconds: a user message opens 5 messages within
 * 20 s, a follow, a scan or a click 3 within 1 min.
 */
export const SHORT_WINDOWS = {
  message: rule(5, 20_000),
  subscribe: rule(3, 60_000),
  scan: rule(3, 60_000),
  click: rule(3, 60_000),
};

/** Creates a sequence through the API (`aSequence` with `overrides`: active, unless they say otherwise). */
export async function createSequence(
  h: Harness,
  service: Service,
  overrides: Partial<SequenceRequest>,
): Promise<string> {
  const res = await h.api(service, '/v1/sequences', {
    method: 'POST',
    body: JSON.stringify(aSequence(overrides)),
  });
  expect(`${res.status} ${await res.clone().text()}`).toMatch(/^201 /);
  return ((await res.json()) as { id: string }).id;
}

/** Text steps at the offsets, saying `<label> 1`, `<label> 2`, … */
export const textSteps = (label: string, offsetsMs: readonly number[]): StepRequest[] =>
  offsetsMs.map((offsetMs, i) => ({ offsetMs, message: aTextMessage(`${label} ${i + 1}`) }));

/** The text contents the simulator delivered to `openid`, in order. */
export const receivedTexts = (h: Harness, openid: string): string[] =>
  h.simulator
    .messages({ appId: APP_ID, openid })
    .map((m) => (m.body as { text: { content: string } }).text.content);

/** Waits up to `timeoutMs` for `check`, failing with the name of what it waited for. */
export async function expectEventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  expect((await waitFor(check, timeoutMs)) ? what : `timed out waiting for ${what}`).toBe(what);
}

/** `wechat_drip_messages_cancelled_total{scope="enrollment"}` of a service: the exits it counted so far. */
export async function exitsCountedBy(service: Service): Promise<number> {
  const { values } = await service.metrics.cancelled.get();
  return values.find((v) => v.labels.scope === 'enrollment')?.value ?? 0;
}
