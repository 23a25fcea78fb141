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
export type AuthorizationStart = z.infer<typeof authorizationStartSchema>;

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
