import { z } from 'zod';
import { accountsSchema } from './accounts';
import { encryptionKey, encryptionKeys } from './encryption-key';
import { platformEnvSchema } from './platform';
import { group, int, setting } from './setting';

/** The WeChat API, the accounts, their keys, and the third-party platform. */
export const wechatSettings = group(
  'WeChat, accounts and the third-party platform',
  {
    WECHAT_API_BASE_URL: setting(
      'wechatApiBaseUrl',
      z
        .string()
        .url()
        .transform((url) => url.replace(/\/+$/, ''))
        .prefault('https://api.weixin.qq.com'),
    ),
    WECHAT_TIMEOUT_MS: setting('wechatTimeoutMs', int(100).prefault('10000'), { unit: 'ms' }),
    WECHAT_MAX_CONNECTIONS: setting('wechatMaxConnections', int(1, 4096).prefault('64')),
    TOKEN_REFRESH_MARGIN_MS: setting('tokenRefreshMarginMs', int(0).prefault('240000'), { unit: 'ms' }),
    TEMPLATE_LIST_TTL_MS: setting('templateListTtlMs', int(1000, 86_400_000).prefault('600000'), {
      unit: 'ms',
    }),
    WECHAT_ACCOUNTS: setting('bootstrapAccounts', accountsSchema, {
      secret: true,
      example: `'[{"appId":"wxdemo0000000001","secret":"demo-secret-not-real","token":"demotoken","encodingAESKey":"DemoEncodingAESKey0123456789abcdefghijklmno","pushMode":"safe","windowPolicy":"official"}]'`,
    }),
    ACCOUNTS_ENCRYPTION_KEY: setting('accountsEncryptionKey', encryptionKey, { secret: true, example: '' }),
    ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: setting(
      'accountsPreviousEncryptionKeys',
      encryptionKeys.prefault(''),
      { secret: true },
    ),
    ACCOUNTS_REFRESH_MS: setting('accountsRefreshMs', int(100, 3_600_000).prefault('30000'), { unit: 'ms' }),
    WECHAT_COMPONENT_APP_ID: setting(null, platformEnvSchema.WECHAT_COMPONENT_APP_ID, {
      example: 'wxdemoplatform0001',
    }),
    WECHAT_COMPONENT_SECRET: setting(null, platformEnvSchema.WECHAT_COMPONENT_SECRET, {
      secret: true,
      example: 'demo-component-secret-not-real',
    }),
    WECHAT_COMPONENT_TOKEN: setting(null, platformEnvSchema.WECHAT_COMPONENT_TOKEN, {
      secret: true,
      example: 'democomponenttoken',
    }),
    WECHAT_COMPONENT_ENCODING_AES_KEY: setting(null, platformEnvSchema.WECHAT_COMPONENT_ENCODING_AES_KEY, {
      secret: true,
      example: 'DemoComponentAESKey0123456789abcdefghijklmn',
    }),
    WECHAT_COMPONENT_LOGIN_PAGE_URL: setting(null, platformEnvSchema.WECHAT_COMPONENT_LOGIN_PAGE_URL),
  },
  {
    WECHAT_API_BASE_URL:
      'where the WeChat API is: `https://api.weixin.qq.com` for a real account; with `START_SIMULATOR=true` (`make run`), the simulator at `SIM_HOST`:`SIM_PORT` when unset',
    WECHAT_TIMEOUT_MS:
      'the longest one WeChat call may take (a send whose answer does not come in time is handled as a [lost answer](guarantees.md))',
    WECHAT_MAX_CONNECTIONS: 'keep-alive connections to the WeChat API per process',
    TOKEN_REFRESH_MARGIN_MS: 'an access token with less life left than this is refreshed',
    TEMPLATE_LIST_TTL_MS:
      'each api process reuses an account’s WeChat template list this long before asking again (an id missing from a list older than 30 s asks at once) — [template messages](sequences.md#template-messages)',
    WECHAT_ACCOUNTS:
      'accounts imported at start-up when absent from Postgres (a bootstrap: accounts are managed through `/v1/accounts`), a JSON array of `{appId, secret, token?, encodingAESKey?, previousEncodingAESKey?, pushMode?, windowPolicy?, sendRatePerSecond?, atLeastOnce?}` ([accounts](accounts-and-platform.md#accounts)); the simulator reads it too',
    ACCOUNTS_ENCRYPTION_KEY:
      'the AES-256 key sealing every secret stored in Postgres (accounts, the platform’s tickets and tokens, cached access tokens), 32 bytes in base64 (`openssl rand -base64 32`; `make run` writes a fresh one into `.env`, `make up` into `docker/.env`); required once an account has a secret, and with the platform; a key once published in this repository is refused',
    ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS:
      'older keys, comma-separated, to open what they sealed while `npm run rotate-account-keys` seals it again ([rotating the encryption key](operations.md#rotating-the-encryption-key))',
    ACCOUNTS_REFRESH_MS:
      'each process re-reads the accounts this often, besides following their change notifications',
    WECHAT_COMPONENT_APP_ID:
      'the third-party platform’s AppID; the four `WECHAT_COMPONENT_*` without a default are set all four or none (none: no platform) — [the platform](accounts-and-platform.md#accounts-through-the-third-party-platform)',
    WECHAT_COMPONENT_SECRET: 'the platform’s AppSecret',
    WECHAT_COMPONENT_TOKEN: 'the 消息校验 Token that signs the platform’s pushes',
    WECHAT_COMPONENT_ENCODING_AES_KEY:
      'the 消息加解密 Key of the platform’s pushes (always safe mode), 43 letters or digits',
    WECHAT_COMPONENT_LOGIN_PAGE_URL:
      'where an account’s admin authorizes the platform: WeChat’s page; with `START_SIMULATOR=true` (`make run`), the simulator’s when unset',
  },
  'The demo account and the demo platform that `.env.example` sets exist only in the WeChat simulator `make run` starts (it reads `WECHAT_ACCOUNTS` and the four `WECHAT_COMPONENT_*` too): replace them with your own, or delete them.',
);
