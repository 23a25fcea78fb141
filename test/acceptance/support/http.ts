import { sleep } from './wait-for';

/** An HTTP answer: status, headers, the text and the JSON it parses to (undefined when not JSON). */
export interface Answer<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: T;
}

/** A request: `json` is serialised with Content-Type application/json; `body` is sent as given. */
export interface Call {
  readonly method?: string;
  readonly json?: unknown;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
}

/** How long `call` keeps sending again a request answered `503 overloaded`. */
const OVERLOADED_BUDGET_MS = 60_000;

const isOverloaded = (a: Answer): boolean =>
  a.status === 503 && a.headers.has('retry-after') && a.body?.error?.code === 'overloaded';

/**
 * Sends one request and reads the whole answer. A `503 overloaded` (more connections than the service's
 * cap, docs/operations.md "HTTP limits") is what a client is told to wait `Retry-After` seconds on and send
 * again: that is done here, as any well-behaved client would.
 */
export async function call<T = any>(url: string, c: Call = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...c.headers };
  let body: string | Buffer | undefined = c.body;
  if (c.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(c.json);
  }
  const method = c.method ?? (body === undefined ? 'GET' : 'POST');
  const giveUpAt = Date.now() + OVERLOADED_BUDGET_MS;
  for (;;) {
    const answer = await send<T>(url, { method, headers, body });
    if (!isOverloaded(answer) || Date.now() > giveUpAt) return answer;
    await sleep(Number(answer.headers.get('retry-after')) * 1000);
  }
}

async function send<T>(url: string, init: RequestInit): Promise<Answer<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed as T };
}
