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

/** Sends one request and reads the whole answer. */
export async function call<T = any>(url: string, c: Call = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...c.headers };
  let body: string | Buffer | undefined = c.body;
  if (c.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(c.json);
  }
  const res = await fetch(url, { method: c.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed as T };
}
