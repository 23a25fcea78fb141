import { z } from 'zod';

/** The user actions that open a customer-service contact window. */
export const INTERACTION_KINDS = ['message', 'subscribe', 'scan', 'click'] as const;

/** Customer-service messages allowed within `windowMs` of an interaction. */
export const windowRuleSchema = z.object({ count: z.number(), windowMs: z.number() });

/** A rule per interaction kind; null when the service does not check the window for the account. */
export const windowPolicySchema = z
  .object({
    message: windowRuleSchema,
    subscribe: windowRuleSchema,
    scan: windowRuleSchema,
    click: windowRuleSchema,
  })
  .nullable();

/** One configured account, as `GET /v1/accounts` lists them (no secrets). */
export const accountViewSchema = z.object({
  appId: z.string(),
  pushMode: z.string(),
  /** Whether the account's webhook points here (a token is configured). */
  webhook: z.boolean(),
  policyName: z.enum(['official', 'legacy-48h', 'none', 'custom']),
  windowPolicy: windowPolicySchema,
});

export type InteractionKind = (typeof INTERACTION_KINDS)[number];
export type WindowRule = z.output<typeof windowRuleSchema>;
export type WindowPolicyView = z.output<typeof windowPolicySchema>;
export type AccountView = z.output<typeof accountViewSchema>;
