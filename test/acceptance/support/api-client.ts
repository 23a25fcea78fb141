import { call, type Answer, type Call } from './http';
import type { BatchLine, CancellationView, FollowerTimeline, MessageView, SequenceView } from './types';

/** The service's HTTP API, authorised with the admin token. */
export interface ApiClient {
  readonly url: string;
  /** Any request, with `Authorization: Bearer <ADMIN_TOKEN>`; `path` starts with `/`. */
  (path: string, c?: Call): Promise<Answer>;
  /** `POST /v1/messages`, expecting 201 or 200. */
  schedule(request: object): Promise<MessageView>;
  /** `GET /v1/messages/:id`, expecting 200. */
  message(id: string): Promise<MessageView>;
  /** `POST /v1/cancellations`, expecting 201. */
  cancel(body: object): Promise<CancellationView>;
  /** `POST /v1/sequences`, expecting 201. */
  createSequence(request: object): Promise<SequenceView>;
  /** `GET /v1/followers/:appId/:openid`, expecting 200. */
  follower(appId: string, openid: string): Promise<FollowerTimeline>;
  /** `POST /v1/messages/batch` with one JSON line per request; the answer's lines, parsed. */
  batch(lines: readonly (object | string)[]): Promise<BatchLine[]>;
}

function expectStatus<T>(answer: Answer<T>, statuses: number[], what: string): T {
  if (!statuses.includes(answer.status)) throw new Error(`${what}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** A client of the API at `url` (e.g. http://127.0.0.1:3000). */
export function createApiClient(url: string, adminToken: string): ApiClient {
  const api = (path: string, c: Call = {}) =>
    call(`${url}${path}`, { ...c, headers: { authorization: `Bearer ${adminToken}`, ...c.headers } });
  return Object.assign(api, {
    url,
    schedule: async (request: object) =>
      expectStatus<MessageView>(await api('/v1/messages', { json: request }), [200, 201], 'schedule'),
    message: async (id: string) =>
      expectStatus<MessageView>(await api(`/v1/messages/${id}`), [200], `GET message ${id}`),
    cancel: async (body: object) =>
      expectStatus<CancellationView>(await api('/v1/cancellations', { json: body }), [201], 'cancel'),
    createSequence: async (request: object) =>
      expectStatus<SequenceView>(await api('/v1/sequences', { json: request }), [201], 'create sequence'),
    follower: async (appId: string, openid: string) =>
      expectStatus<FollowerTimeline>(
        await api(`/v1/followers/${encodeURIComponent(appId)}/${encodeURIComponent(openid)}`),
        [200],
        `follower ${openid}`,
      ),
    batch: async (lines: readonly (object | string)[]) => {
      const body = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
      const answer = await api('/v1/messages/batch', {
        body,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      if (answer.status !== 200) throw new Error(`batch: ${answer.status} ${answer.text}`);
      return answer.text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as BatchLine);
    },
  });
}
