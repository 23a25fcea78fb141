import { z } from 'zod';
import { APP_ID_PATTERN } from '../contract';

/**
 * The WeChat Open Platform third-party platform (第三方平台, the "component") this deployment runs as, for
 * the accounts that authorized it (reference/wechat-platform.md §1). Every field but the app id is secret.
 */
export interface PlatformConfig {
  /** WECHAT_COMPONENT_APP_ID: the component's AppID (wx…), also the AppId of every push it receives. */
  readonly componentAppId: string;
  /** WECHAT_COMPONENT_SECRET: the component's AppSecret, for `api_component_token`. Secret. */
  readonly componentSecret: string;
  /** WECHAT_COMPONENT_TOKEN: the 消息校验 Token that signs the platform's pushes. Secret. */
  readonly componentToken: string;
  /** WECHAT_COMPONENT_ENCODING_AES_KEY: the 43-character key of the platform's pushes (always safe mode). Secret. */
  readonly componentEncodingAESKey: string;
  /**
   * WECHAT_COMPONENT_LOGIN_PAGE_URL: WeChat's authorization page, where an account's admin authorizes the
   * platform (the simulator's in development). Default https://mp.weixin.qq.com/cgi-bin/componentloginpage.
   */
  readonly loginPageUrl: string;
}

/** The variables that configure the platform: all four or none. */
const REQUIRED = [
  'WECHAT_COMPONENT_APP_ID',
  'WECHAT_COMPONENT_SECRET',
  'WECHAT_COMPONENT_TOKEN',
  'WECHAT_COMPONENT_ENCODING_AES_KEY',
] as const;

/** The four variables, each checked on its own; `platformConfig` then wants all of them or none. */
export const platformEnvSchema = {
  WECHAT_COMPONENT_APP_ID: z
    .string()
    .regex(APP_ID_PATTERN, 'must be 4–64 letters, digits, _ or -')
    .optional(),
  WECHAT_COMPONENT_SECRET: z.string().min(1).max(128, 'must be at most 128 characters').optional(),
  WECHAT_COMPONENT_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9]{3,32}$/, 'must be 3–32 letters or digits')
    .optional(),
  WECHAT_COMPONENT_ENCODING_AES_KEY: z
    .string()
    .regex(/^[A-Za-z0-9]{43}$/, 'an EncodingAESKey is 43 letters or digits')
    .optional(),
  WECHAT_COMPONENT_LOGIN_PAGE_URL: z
    .url({ protocol: /^https?$/ })
    .prefault('https://mp.weixin.qq.com/cgi-bin/componentloginpage'),
};

type PlatformEnv = { readonly [K in (typeof REQUIRED)[number]]?: string } & {
  readonly WECHAT_COMPONENT_LOGIN_PAGE_URL: string;
};

/**
 * The platform's settings when all four variables are set, null when none is; otherwise a problem for
 * each missing one is added to `problems` (a half-configured platform would fail only when WeChat pushes),
 * as is a missing ACCOUNTS_ENCRYPTION_KEY (the platform's credentials are only ever stored sealed).
 * The values are never quoted.
 */
export function platformConfig(
  e: PlatformEnv,
  hasEncryptionKey: boolean,
  problems: string[],
): PlatformConfig | null {
  const missing = REQUIRED.filter((n) => e[n] === undefined);
  if (missing.length === REQUIRED.length) return null;
  if (missing.length > 0) {
    for (const name of missing) {
      problems.push(`${name}: is required when any WECHAT_COMPONENT_* variable is set (all four or none)`);
    }
    return null;
  }
  if (!hasEncryptionKey) {
    problems.push(
      'ACCOUNTS_ENCRYPTION_KEY: is required with the platform (its ticket and tokens are stored sealed)',
    );
  }
  return Object.freeze({
    componentAppId: e.WECHAT_COMPONENT_APP_ID ?? '',
    componentSecret: e.WECHAT_COMPONENT_SECRET ?? '',
    componentToken: e.WECHAT_COMPONENT_TOKEN ?? '',
    componentEncodingAESKey: e.WECHAT_COMPONENT_ENCODING_AES_KEY ?? '',
    loginPageUrl: e.WECHAT_COMPONENT_LOGIN_PAGE_URL,
  });
}
