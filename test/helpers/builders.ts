import type { SimTemplate } from '../../src/simulator/templates';
/**
 * Builders for the integration and unit tests: each returns a valid value a test changes only where its
 * claim lies (`aMessageRequest({ cancelKey: 'k' })`). Typed against the service's own types where the
 * service exports them, so a misplaced field is a compile error rather than a silently dropped value.
 */
import { randomBytes } from 'node:crypto';
import { sealSecrets } from '../../src/accounts/account';
import type { SecretBox } from '../../src/accounts/secret-box';
import type { NewStoredAccount } from '../../src/store/accounts';
import type { Channel } from '../../src/store/message-status';
import type { NewMessage } from '../../src/store/message-store';
import type { Outcome } from '../../src/store/record-outcomes';
import type { RelayOptions } from '../../src/scheduling/relay';
import {
  accountCreateSchema,
  type AccountCreateBody,
  type ExitCondition,
  type Trigger,
  type GoalInput,
  type WaitInput,
} from '../../src/contract';
import type { CustomMessage, NoticeMessage, TemplateMessage } from '../../src/wechat/message-schema';
import { newMessageId } from '../../src/store/message-id';

/** The account every harness configures (and its simulator knows). */
export const APP_ID = 'wxtest0000000001';

/** A follower's openid no other test uses; `label` says whose it is when a test fails. */
export const anOpenid = (label = 'o'): string => `${label}-${randomBytes(5).toString('hex')}`;

/** A customer-service text message, as stored and sent (without `touser`). */
export const aTextMessage = (content = 'hello'): CustomMessage => ({ msgtype: 'text', text: { content } });

/**
 * A template of an account's library in the simulator (`simulator.registerTemplates`): an old-style one by
 * default, whose `first` and `remark` WeChat no longer shows, so a message filling only `first` is accepted.
 */
export const aSimTemplate = (
  templateId = 'TPL-TEST-0001',
  content = '{{first.DATA}}\n内容：{{keyword1.DATA}}\n{{remark.DATA}}',
): SimTemplate => ({
  template_id: templateId,
  title: 'test template',
  primary_industry: '',
  deputy_industry: '',
  content,
  example: '',
});

/** A template message (`channel: 'template'`, or a step's `fallback`). */
export const aTemplateMessage = (first = 'reminder'): TemplateMessage => ({
  template_id: 'TPL-TEST-0001',
  data: { first: { value: first } },
});

/** The body of `POST /v1/messages` (and one line of `/v1/messages/batch`); a type, so it is a plain record. */
export type MessageRequest = {
  appId: string;
  openid: string;
  message: Record<string, unknown>;
  channel?: Channel;
  sendAt?: string;
  delayMs?: number;
  idempotencyKey?: string;
  cancelKey?: string;
  maxLatenessMs?: number;
};

/** A valid request for a fresh follower, due now (neither `sendAt` nor `delayMs`); `overrides` replace whole fields. */
export const aMessageRequest = (overrides: Partial<MessageRequest> = {}): MessageRequest => ({
  appId: APP_ID,
  openid: anOpenid(),
  message: aTextMessage(),
  ...overrides,
});

/** One step of a `POST /v1/sequences` body: a message, or A/B variants. */
export type StepRequest = {
  offsetMs?: number;
  /** A last-chance step: this long before the follower's contact window closes. */
  beforeWindowCloseMs?: number;
  message?: Record<string, unknown>;
  fallback?: Record<string, unknown> | null;
  variants?: {
    name: string;
    weight: number;
    message: Record<string, unknown>;
    fallback?: Record<string, unknown> | null;
  }[];
  maxLatenessMs?: number;
};

/** The body of `POST /v1/sequences`. */
export type SequenceRequest = {
  appId: string;
  name: string;
  status?: 'draft' | 'active';
  trigger: Trigger;
  steps: StepRequest[];
  /** The wait that ends the main path, and the paths it leads to (docs/sequences.md "Journeys"). */
  wait?: WaitInput;
  paths?: Record<string, { steps?: StepRequest[]; wait?: WaitInput }>;
  goal?: GoalInput;
  oncePerFollower?: boolean;
  exits?: ExitCondition[];
  quietHours?: { start: string; end: string } | false;
};

/** A step right after the trigger. */
export const aStep = (overrides: Partial<StepRequest> = {}): StepRequest => ({
  offsetMs: 0,
  message: aTextMessage('step'),
  ...overrides,
});

/** An active one-step sequence started by any follow, unless `overrides` say otherwise. */
export const aSequence = (overrides: Partial<SequenceRequest> = {}): SequenceRequest => ({
  appId: APP_ID,
  name: `drip ${randomBytes(3).toString('hex')}`,
  status: 'active',
  trigger: { type: 'subscribe' },
  steps: [aStep()],
  ...overrides,
});

/**
 * A row for the store's `insertMessages`, due now, for a fresh follower: the fixture for tests that need
 * a message in the table without going through the API.
 */
export const aNewMessage = (overrides: Partial<NewMessage> = {}): NewMessage => ({
  id: newMessageId(overrides.dueAt ?? new Date()),
  appId: APP_ID,
  openid: anOpenid(),
  channel: 'custom',
  payload: aTextMessage(),
  dueAt: new Date(),
  idempotencyKey: null,
  requestHash: null,
  cancelKey: null,
  ...overrides,
});

/** A fresh app id no other test uses (`wx` + 16 hex digits, as WeChat's). */
export const anAppId = (): string => `wx${randomBytes(8).toString('hex')}`;

/** A 43-character EncodingAESKey. */
export const anEncodingAESKey = (): string =>
  randomBytes(32)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 43);

/** The body of `POST /v1/accounts`: a plaintext-push own account with a fresh app id, secret and token. */
export const anAccountBody = (
  overrides: Partial<AccountCreateBody> = {},
): AccountCreateBody & { appId: string } => ({
  appId: anAppId(),
  secret: `secret-${randomBytes(8).toString('hex')}`,
  token: `tok${randomBytes(6).toString('hex')}`,
  ...overrides,
});

/** An account row as the store writes it: the create body's defaults, its secret and token sealed by `box`. */
export const aStoredAccount = (
  box: SecretBox,
  overrides: Partial<NewStoredAccount> = {},
  secrets: { secret?: string; token?: string } = {},
): NewStoredAccount => {
  const body = accountCreateSchema.parse(
    anAccountBody({ ...(overrides.appId ? { appId: overrides.appId } : {}), ...secrets }),
  );
  const { secret, token, encodingAESKey, previousEncodingAESKey, ...fields } = body;
  const sealed = sealSecrets(box, body.appId, { secret, token, encodingAESKey, previousEncodingAESKey });
  return { ...fields, kind: 'own', ...sealed, ...overrides } as NewStoredAccount;
};

/** A subscription notice (`message/subscribe/bizsend` body without `touser`). */
export const aNoticeMessage = (templateId = 'NOTICE-TPL-0001'): NoticeMessage => ({
  template_id: templateId,
  data: { thing1: { value: 'Your course starts' } },
});

/** The outcome of a claimed message WeChat accepted (a template send's with WeChat's `msgid`). */
export const aSentOutcome = (id: string, msgid: string | null = null): Outcome => ({
  id,
  status: 'sent',
  reason: null,
  nextDueAt: null,
  at: new Date(),
  attempt: 1,
  errcode: 0,
  errmsg: 'ok',
  durationMs: 3,
  label: 'sent',
  msgid,
});

/** The relay's options with the production thresholds (overdue sweep at 5 min). */
export const aRelayOptions = (overrides: Partial<RelayOptions> = {}): RelayOptions => ({
  intervalMs: 1000,
  pendingAfterMs: 5000,
  overdueAfterMs: 300_000,
  batchSize: 500,
  sendingTimeoutMs: 300_000,
  atLeastOnceAppIds: [],
  ...overrides,
});
