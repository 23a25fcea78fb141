import { call, type Answer } from './http';
import type { PushOutcome, SimMessage } from './types';

/** The fault spec of `POST /__sim/faults` (docs/simulator.md "The WeChat simulator"). */
export interface FaultSpec {
  readonly errorRate?: number;
  readonly errcode?: number;
  readonly latencyMs?: number;
  readonly hangMs?: number;
  readonly forceErrcode?: number | null;
  readonly count?: number | null;
  /** Only sends on this API are faulted (e.g. `template` for 43116 / 43117 / 40249). */
  readonly channel?: 'custom' | 'template' | 'notice' | null;
}

/** `POST /__sim/template-reports`: the TEMPLATESENDJOBFINISH Status pushed after accepted template sends. */
export interface TemplateReportSpec {
  readonly status: 'success' | 'failed:user block' | 'failed:system failed' | 'failed:freq limit';
  readonly count?: number | null;
}

/** Extra fields of a follower action (`repeat`: WeChat's retries of the identical push). */
export interface PushOptions {
  readonly repeat?: number;
  readonly concurrent?: boolean;
  /** `indented`: whitespace between every XML tag and its value (docs/simulator.md). */
  readonly layout?: 'compact' | 'indented';
}

/** The WeChat simulator from the outside: its follower routes, its record and its faults. */
export interface SimulatorClient {
  readonly url: string;
  follow(openid: string, opts?: PushOptions & { scene?: string }): Promise<PushOutcome>;
  unfollow(openid: string, opts?: PushOptions): Promise<PushOutcome>;
  scan(openid: string, scene: string, opts?: PushOptions): Promise<PushOutcome>;
  click(openid: string, key: string, opts?: PushOptions): Promise<PushOutcome>;
  message(openid: string, content: string, opts?: PushOptions): Promise<PushOutcome>;
  /** The follower answers a subscription-notice popup: accept or reject, per template. */
  notice(
    openid: string,
    answers: readonly { templateId: string; status: 'accept' | 'reject' }[],
  ): Promise<PushOutcome>;
  /** What it received, oldest first (`GET /__sim/messages`), for one follower or for everyone. */
  messages(openid?: string): Promise<SimMessage[]>;
  /** The text contents a follower received, in order (custom text messages only). */
  texts(openid: string): Promise<string[]>;
  setFaults(spec: FaultSpec): Promise<void>;
  clearFaults(): Promise<void>;
  setTemplateReports(spec: TemplateReportSpec): Promise<void>;
  clearTemplateReports(): Promise<void>;
  /** `POST /__sim/accounts`: (re-)registers an account, with the simulator's own fields (`publishApis`). */
  register(account: object): Promise<void>;
  /** Followers who answer sends on cue (`POST /__sim/cues`, docs/simulator.md "Followers on cue"). */
  cues(cues: readonly object[]): Promise<void>;
  clearCues(): Promise<void>;
  /** Replaces the account's template library (`POST /__sim/templates`). */
  templates(templates: readonly { template_id: string; title: string; content: string }[]): Promise<void>;
  /** The parametric QR codes WeChat made for the account (`GET /__sim/qrcodes`). */
  qrcodes(): Promise<
    { ticket: string; url: string; actionName: string; scene: string; expireSeconds: number | null }[]
  >;
  /** The images uploaded to the account's permanent media (`GET /__sim/media`). */
  media(): Promise<{ mediaId: string; filename: string; contentType: string; bytes: number }[]>;
  /** `GET /__sim/stats`. */
  stats(): Promise<
    { tokens: { issued: number; requests: { stable: number; classic: number } } } & Record<string, unknown>
  >;
}

async function ok<T>(answer: Promise<Answer<T>>, what: string): Promise<T> {
  const a = await answer;
  if (a.status !== 200) throw new Error(`simulator ${what}: ${a.status} ${a.text}`);
  return a.body;
}

/** A client of the simulator at `url`, acting for the account `appId`. */
export function createSimulatorClient(url: string, appId: string): SimulatorClient {
  const push = (openid: string, action: string, fields: object) =>
    ok<PushOutcome>(
      call(`${url}/__sim/users/${encodeURIComponent(openid)}/${action}`, { json: { appId, ...fields } }),
      action,
    );
  const messages = async (openid?: string) => {
    const query = new URLSearchParams({ appId, limit: '100000', ...(openid ? { openid } : {}) });
    return (
      await ok<{ messages: SimMessage[] }>(call(`${url}/__sim/messages?${query.toString()}`), 'messages')
    ).messages;
  };
  return {
    url,
    follow: (openid, opts = {}) => push(openid, 'follow', opts),
    unfollow: (openid, opts = {}) => push(openid, 'unfollow', opts),
    scan: (openid, scene, opts = {}) => push(openid, 'scan', { scene, ...opts }),
    click: (openid, key, opts = {}) => push(openid, 'click', { key, ...opts }),
    message: (openid, content, opts = {}) => push(openid, 'message', { content, ...opts }),
    notice: (openid, answers) => push(openid, 'notice', { answers }),
    messages,
    texts: async (openid) =>
      (await messages(openid)).filter((m) => m.msgtype === 'text').map((m) => String(m.body.text.content)),
    setFaults: async (spec) => void (await ok(call(`${url}/__sim/faults`, { json: spec }), 'faults')),
    clearFaults: async () => void (await ok(call(`${url}/__sim/faults`, { method: 'DELETE' }), 'faults')),
    setTemplateReports: async (spec) =>
      void (await ok(call(`${url}/__sim/template-reports`, { json: spec }), 'template-reports')),
    clearTemplateReports: async () =>
      void (await ok(call(`${url}/__sim/template-reports`, { method: 'DELETE' }), 'template-reports')),
    register: async (account) =>
      void (await ok(call(`${url}/__sim/accounts`, { json: account }), 'accounts')),
    stats: () => ok(call(`${url}/__sim/stats`), 'stats'),
    cues: async (cues) => void (await ok(call(`${url}/__sim/cues`, { json: { cues } }), 'cues')),
    clearCues: async () => void (await ok(call(`${url}/__sim/cues`, { method: 'DELETE' }), 'cues')),
    templates: async (templates) =>
      void (await ok(call(`${url}/__sim/templates`, { json: { appId, templates } }), 'templates')),
    media: async () =>
      (
        await ok<{ media: Awaited<ReturnType<SimulatorClient['media']>> }>(
          call(`${url}/__sim/media?appId=${encodeURIComponent(appId)}`),
          'media',
        )
      ).media,
    qrcodes: async () =>
      (
        await ok<{ qrcodes: Awaited<ReturnType<SimulatorClient['qrcodes']>> }>(
          call(`${url}/__sim/qrcodes?appId=${encodeURIComponent(appId)}`),
          'qrcodes',
        )
      ).qrcodes,
  };
}
