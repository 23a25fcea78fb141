import { randomBytes } from 'node:crypto';
import { APP_ID } from './world';

/** A follower's openid no other test uses. */
export const anOpenid = (label = 'o'): string => `${label}-${randomBytes(5).toString('hex')}`;

/** A cancel key (or idempotency key) no other test uses. */
export const aKey = (label = 'k'): string => `${label}-${randomBytes(5).toString('hex')}`;

/** A customer-service text message (docs/api.md "HTTP API": a payload without `touser`). */
export const aTextMessage = (content = 'hello'): { msgtype: 'text'; text: { content: string } } => ({
  msgtype: 'text',
  text: { content },
});

/**
 * The template every world's account holds in the simulator's template library (docs/simulator.md): the
 * one `aTemplateMessage` fills. Its fields hold at most 20 characters (WeChat's rules since 2023-05).
 */
export const ACCEPTANCE_TEMPLATE = {
  template_id: 'tpl-acceptance-0001',
  title: '提醒',
  content: '提醒：{{thing1.DATA}}\n备注：{{thing2.DATA}}',
};

/** A template-message payload (`channel: "template"`, or a step's `fallback`): `text` ≤ 20 characters. */
export const aTemplateMessage = (
  text = 'reminder',
): { template_id: string; data: Record<string, { value: string }> } => ({
  template_id: ACCEPTANCE_TEMPLATE.template_id,
  data: { thing1: { value: text }, thing2: { value: 'see you there' } },
});

/** A subscription-notice payload (`channel: "notice"`; a step's fallback adds `"channel": "notice"`). */
export const aNoticeMessage = (
  thing = '课程即将开始',
): { template_id: string; data: Record<string, { value: string }> } => ({
  template_id: 'notice-acceptance-0001',
  data: { thing1: { value: thing }, time2: { value: '2026-12-01 09:00' } },
});

/** The create request of docs/api.md "HTTP API". */
export interface MessageRequest {
  appId: string;
  openid: string;
  message: Record<string, unknown>;
  channel?: 'custom' | 'template' | 'notice';
  sendAt?: string;
  delayMs?: number;
  idempotencyKey?: string;
  cancelKey?: string;
  maxLatenessMs?: number;
  frequencyCapped?: boolean;
}

/** A valid create request for a fresh follower, due now; `overrides` replace whole fields. */
export const aMessageRequest = (overrides: Partial<MessageRequest> = {}): MessageRequest => ({
  appId: APP_ID,
  openid: anOpenid(),
  message: aTextMessage(),
  delayMs: 0,
  ...overrides,
});

/** One rule of a window policy (docs/webhook.md "Contact windows"). */
export interface WindowRule {
  count: number;
  windowMs: number;
}
type WindowPolicy = Record<'message' | 'subscribe' | 'scan' | 'click', WindowRule>;

/** A custom window policy of short windows, so drips run in seconds: 5 messages within 1 min after a user message, 3 after the rest. */
export const aWindowPolicy = (overrides: Partial<WindowPolicy> = {}): WindowPolicy => ({
  message: { count: 5, windowMs: 60_000 },
  subscribe: { count: 3, windowMs: 60_000 },
  scan: { count: 3, windowMs: 60_000 },
  click: { count: 3, windowMs: 60_000 },
  ...overrides,
});

/** A sequence trigger (docs/sequences.md "Sequences"). */
export type Trigger =
  | { type: 'subscribe'; scene?: string }
  | { type: 'scan'; scene: string }
  | { type: 'click'; key: string }
  | { type: 'keyword'; keyword: string }
  | { type: 'event'; name: string }
  | { type: 'api' };

/** What ends an enrollment early (docs/sequences.md "Exit conditions"). */
export type ExitCondition =
  { type: 'message'; keyword?: string } | { type: 'click'; key: string } | { type: 'event'; name: string };

/** What a journey's wait watches for, how long, and where it leads (docs/sequences.md "Journeys"). */
export interface Wait {
  until: ExitCondition | { type: 'scan'; scene: string };
  timeoutMs?: number;
  afterMs?: number;
  yes: string;
  no?: string | null;
}

/** One step of a sequence: a message, or A/B variants. */
export interface Step {
  offsetMs?: number;
  /** A last-chance step: this long before the follower's contact window closes. */
  beforeWindowCloseMs?: number;
  message?: Record<string, unknown>;
  fallback?: Record<string, unknown> | null;
  variants?: { name: string; weight: number; message: Record<string, unknown> }[];
  maxLatenessMs?: number;
}

/** A sequence definition for `POST /v1/sequences`. */
export interface SequenceRequest {
  appId: string;
  name: string;
  status?: 'draft' | 'active';
  trigger: Trigger;
  steps: Step[];
  /** The wait that ends the main path and the paths it leads to (docs/sequences.md "Journeys"). */
  wait?: Wait;
  paths?: Record<string, { steps?: Step[]; wait?: Wait }>;
  /** A conversion goal (docs/sequences.md "Conversion goals"). */
  goal?: { until: ExitCondition; periodMs?: number; exit?: boolean };
  oncePerFollower?: boolean;
  exits?: ExitCondition[];
  /** Its own quiet hours (HH:MM[:SS] in the account's zone), `false` for none; absent: the account's. */
  quietHours?: { start: string; end: string } | false;
}

/** A step right after the trigger. */
export const aStep = (overrides: Partial<Step> = {}): Step => ({
  offsetMs: 0,
  message: aTextMessage('step'),
  ...overrides,
});

/** An active one-step sequence started by any follow, unless `overrides` say otherwise. */
export const aSequence = (overrides: Partial<SequenceRequest> = {}): SequenceRequest => ({
  appId: APP_ID,
  name: `sequence ${randomBytes(3).toString('hex')}`,
  status: 'active',
  trigger: { type: 'subscribe' },
  steps: [aStep()],
  ...overrides,
});

/** The body of `POST /v1/accounts` (docs/accounts-and-platform.md "Accounts"): a fresh safe-mode account, secrets random. */
export interface AccountRequest {
  appId: string;
  secret: string;
  token: string;
  encodingAESKey: string;
  pushMode: 'plaintext' | 'compatible' | 'safe';
  windowPolicy: unknown;
  name?: string;
  enabled?: boolean;
}
export const anAccountRequest = (overrides: Partial<AccountRequest> = {}): AccountRequest => ({
  appId: `wx${randomBytes(8).toString('hex')}`,
  secret: `secret${randomBytes(12).toString('hex')}`,
  token: `token${randomBytes(8).toString('hex')}`,
  encodingAESKey: randomBytes(40)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .padEnd(43, 'K')
    .slice(0, 43),
  pushMode: 'safe',
  windowPolicy: 'official',
  ...overrides,
});
