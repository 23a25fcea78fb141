import { z } from 'zod';
import { jsonEnv } from '../env';
import {
  appIdSchema,
  PUSH_MODES,
  type PushMode,
  type WindowPolicyInput,
  windowPolicyInputSchema,
} from '../contract';

/** One WeChat Official Account this deployment sends for, as WECHAT_ACCOUNTS lists it (secrets in clear). */
export interface WechatAccount {
  /** The account's AppID (wx…). */
  readonly appId: string;
  /** The AppSecret used to obtain access tokens. Secret: never logged. */
  readonly secret: string;
  /** Customer-service sends per second allowed for this account. Default 1000. */
  readonly sendRatePerSecond: number;
  /**
   * When true, a message found stuck in `sending` after SENDING_TIMEOUT_MS, or whose send lost its answer
   * (it may have reached WeChat), is sent again (at-least-once) instead of being marked `unknown`. Default
   * false: WeChat offers no idempotency key for custom/send.
   */
  readonly atLeastOnce: boolean;
  /** The push Token set in the WeChat admin (服务器配置); without it the webhook refuses this account. */
  readonly token: string | null;
  /** The 43-character EncodingAESKey, for compatible and safe push modes. Secret. */
  readonly encodingAESKey: string | null;
  /** The key before the last rotation, tried when the current one fails. Secret. */
  readonly previousEncodingAESKey: string | null;
  /** How WeChat pushes to us: `plaintext`, `compatible` or `safe` (AES). Default plaintext. */
  readonly pushMode: PushMode;
  /** Contact-window rules enforced before each customer-service send. Default: the official table. */
  readonly windowPolicy: WindowPolicyInput;
}

export { PUSH_MODES, type PushMode };

const AES_KEY = /^[A-Za-z0-9]{43}$/;
const AES_KEY_MESSAGE = 'an EncodingAESKey is 43 letters or digits';

/** One account of WECHAT_ACCOUNTS; unknown fields are refused, so a misspelt one is not silently ignored. */
const accountSchema = z
  .object({
    appId: appIdSchema,
    secret: z.string().min(1, 'secret is required'),
    sendRatePerSecond: z.number().int().positive().default(1000),
    atLeastOnce: z.boolean().default(false),
    token: z
      .string()
      .regex(/^[A-Za-z0-9]{3,32}$/, 'token must be 3–32 letters or digits')
      .nullable()
      .default(null),
    encodingAESKey: z.string().regex(AES_KEY, AES_KEY_MESSAGE).nullable().default(null),
    previousEncodingAESKey: z.string().regex(AES_KEY, AES_KEY_MESSAGE).nullable().default(null),
    pushMode: z.enum(PUSH_MODES).default('plaintext'),
    windowPolicy: windowPolicyInputSchema.default('official'),
  })
  .strict()
  .refine((a) => a.pushMode === 'plaintext' || a.encodingAESKey !== null, {
    message: 'pushMode compatible or safe needs an encodingAESKey',
    path: ['encodingAESKey'],
  });

/**
 * WECHAT_ACCOUNTS: a JSON array of accounts, appIds unique, each checked as above; optional. It only
 * bootstraps the accounts table (src/accounts/bootstrap.ts): absent accounts are imported at start-up.
 */
export const accountsSchema = jsonEnv(
  z
    .array(accountSchema)
    .refine((a) => new Set(a.map((x) => x.appId)).size === a.length, 'appIds must be unique'),
  'must be a JSON array of accounts',
)
  .optional()
  .transform((a) => a ?? []);
