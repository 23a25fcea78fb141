import { z } from 'zod';
import { appIdSchema } from './accounts';

/**
 * What an API key may do (docs/api.md "API keys"): `schedule` messages, enrollments and follower events;
 * `cancel` messages (a reschedule needs both); `read` messages and followers. Each only for its accounts.
 */
export const KEY_OPERATIONS = ['schedule', 'cancel', 'read'] as const;
export type KeyOperation = (typeof KEY_OPERATIONS)[number];

/** The accounts one key may name at most. */
export const KEY_MAX_ACCOUNTS = 500;

/** A list without repeats, in the order given. */
const distinct = <T extends z.ZodTypeAny>(item: T, what: string, max: number) =>
  z
    .array(item)
    .min(1, `give at least one ${what}`)
    .max(max)
    .refine((list) => new Set(list).size === list.length, { message: `a ${what} is listed twice` });

/** `POST /v1/keys`. */
export const createKeyRequestSchema = z
  .object({
    /** Which integration holds it ("crm", "course reminders"): shown in lists, never secret. */
    name: z.string().trim().min(1).max(100),
    accounts: distinct(appIdSchema, 'account', KEY_MAX_ACCOUNTS),
    operations: distinct(z.enum(KEY_OPERATIONS), 'operation', KEY_OPERATIONS.length),
  })
  .strict();
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;

/** A key as lists show it: never the key itself, only its last four characters. */
export const keyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** `wdk_…` and the key's last four characters. */
  hint: z.string(),
  accounts: z.array(z.string()),
  operations: z.array(z.enum(KEY_OPERATIONS)),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type KeyView = z.infer<typeof keyViewSchema>;

/** The answer to `POST /v1/keys`: the only time the key itself is shown. */
export const createdKeySchema = keyViewSchema.extend({ key: z.string() });
export type CreatedKey = z.infer<typeof createdKeySchema>;

export const keyListSchema = z.object({ keys: z.array(keyViewSchema) });
export type KeyList = z.infer<typeof keyListSchema>;
