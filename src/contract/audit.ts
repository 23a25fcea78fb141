import { z } from 'zod';
import { appIdSchema } from './accounts';

/** What an audit entry records: a change of a sequence, an account or an API key made through the API. */
export const AUDIT_ACTIONS = [
  'sequence.created',
  'sequence.updated',
  'sequence.duplicated',
  'sequence.activated',
  'sequence.paused',
  'sequence.resumed',
  'sequence.archived',
  'sequence.deleted',
  'account.created',
  'account.updated',
  'account.deleted',
  'account.authorized',
  'account.unauthorized',
  'key.created',
  'key.revoked',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What each action's entry says in `details` (docs/api.md "The audit log"): names and counts, never a secret. */
export interface AuditDetails {
  'sequence.created': { name: string; status: 'draft' | 'active' };
  'sequence.updated': { name: string; version: number };
  'sequence.duplicated': { name: string; copyOf: string };
  'sequence.activated': { name: string };
  'sequence.paused': { name: string; cancelledSteps: number };
  'sequence.resumed': { name: string };
  'sequence.archived': { name: string; cancelledSteps: number };
  'sequence.deleted': { name: string };
  'account.created': { name: string | null };
  /** The names of the fields the request set. */
  'account.updated': { fields: string[] };
  'account.deleted': { name: string | null; cancelled: number; archivedSequences: number };
  /** Through the third-party platform: a new account (`created`) or one authorizing again (`updated`). */
  'account.authorized': { outcome: 'created' | 'updated'; permissions: number[] };
  /**
   * The platform's authorization is gone: the account revoked it (`revoked`, WeChat's push) or WeChat
   * refused its refresh token (`token_refused`); its open messages were cancelled.
   */
  'account.unauthorized': { cause: 'revoked' | 'token_refused'; cancelled: number };
  'key.created': { name: string; accounts: string[]; operations: string[] };
  'key.revoked': { name: string };
}

/** An action with its details, each action's own (a field misplaced or missing does not compile). */
export type AuditChange = {
  [A in AuditAction]: { readonly action: A; readonly details: AuditDetails[A] };
}[AuditAction];

/** What an entry is about. */
export const AUDIT_TARGETS = ['sequence', 'account', 'key'] as const;
export type AuditTarget = (typeof AUDIT_TARGETS)[number];

/** Most entries one page of `GET /v1/audit` gives, and how many without `limit`. */
export const AUDIT_PAGE_MAX = 200;
export const AUDIT_PAGE_DEFAULT = 50;

/** `GET /v1/audit?appId=…&limit=…&before=…`: newest first; `before` is the `next` of the previous page. */
export const auditQuerySchema = z
  .object({
    appId: appIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).optional(),
    before: z
      .string()
      .regex(/^[1-9]\d{0,17}$/, 'must be the next of a previous page')
      .optional(),
  })
  .strict();

/**
 * Who made a change: the admin token (ADMIN_TOKEN, the only credential that changes sequences, accounts and
 * keys), or WeChat (an account's admin authorizing or revoking the third-party platform there).
 */
export const auditActorSchema = z.object({ kind: z.enum(['admin_token', 'wechat']) });
export type AuditActor = z.infer<typeof auditActorSchema>;

export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: auditActorSchema,
  /** The address the request came from. */
  source: z.string(),
  /** The request's id (X-Request-Id), which finds it in the service's log. */
  requestId: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  target: z.object({ type: z.enum(AUDIT_TARGETS), id: z.string() }),
  appId: z.string().nullable(),
  /** What changed: field names, a name, counts — never a secret's value. */
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditListSchema = z.object({ entries: z.array(auditEntrySchema), next: z.string().nullable() });
export type AuditList = z.infer<typeof auditListSchema>;
