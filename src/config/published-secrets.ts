import { z } from 'zod';

/**
 * Secrets this repository once published as examples or defaults (.env.example, docker/compose.yaml):
 * anyone who read them knows them, so no process runs with one. `make run` and `make up` generate fresh
 * ones. (A published key may still be among ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS, to rotate away from it.)
 */
const PUBLISHED = {
  ADMIN_TOKEN: ['change-me-to-a-long-random-string', 'change-me-please-0123'],
  ACCOUNTS_ENCRYPTION_KEY: ['ZGVtby1rZXktbm90LWZvci1wcm9kdWN0aW9uLTAwMDA='],
} as const;

const FIX: Record<keyof typeof PUBLISHED, string> = {
  ADMIN_TOKEN: 'set a fresh one (openssl rand -hex 24)',
  ACCOUNTS_ENCRYPTION_KEY:
    'set a fresh one (openssl rand -base64 32) and move this one to ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS until `npm run rotate-account-keys` ran',
};

/** Refuses a published value of `name`, saying how to replace it (never repeating the value). */
export const notPublished =
  (name: keyof typeof PUBLISHED) => (text: string | undefined, ctx: z.RefinementCtx) => {
    if (text !== undefined && (PUBLISHED[name] as readonly string[]).includes(text.trim())) {
      ctx.addIssue({
        code: 'custom',
        message: `is a value published in this repository's examples: ${FIX[name]}`,
      });
    }
  };
