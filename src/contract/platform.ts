import { z } from 'zod';

/**
 * `POST /v1/platform/authorizations`: starts connecting an official account through the third-party
 * platform. `redirectUri` is where WeChat sends the admin's browser back with the code: this service's
 * public origin + `/wechat/platform/callback`.
 */
export const authorizationStartSchema = z
  .object({
    redirectUri: z.url({ protocol: /^https?$/, error: 'redirectUri must be an absolute http(s) URL' }),
  })
  .strict();

/** Its answer (201): the link to open, from a user's click, while the pre-auth code lives. */
export const authorizationStartedSchema = z.object({
  preAuthCode: z.string(),
  expiresInS: z.number(),
  authorizationUrl: z.string(),
});
export type AuthorizationStarted = z.infer<typeof authorizationStartedSchema>;

/** `GET /wechat/platform/callback`'s answer: the account the authorization connected. */
export const accountConnectedSchema = z.object({
  appId: z.string(),
  outcome: z.enum(['created', 'updated']),
  /** The permission set ids (func_info) the account granted. */
  permissions: z.array(z.number()),
});
export type AccountConnected = z.infer<typeof accountConnectedSchema>;

/**
 * `GET /v1/platform`: whether the service runs as a third-party platform, and the path (after the
 * service's public origin) of the callback to give `POST /v1/platform/authorizations` as `redirectUri`.
 */
export const platformViewSchema = z.object({
  configured: z.boolean(),
  /** `/wechat/platform/callback`; null when the platform is not configured. */
  callbackPath: z.string().nullable(),
});
export type PlatformView = z.infer<typeof platformViewSchema>;
