import { z } from 'zod';
import { accountSchema, type SimulatorAccount } from './config';

const formatSchema = z.enum(['xml', 'json']).optional();

/**
 * The body of `POST /__sim/accounts`: an account as WECHAT_ACCOUNTS lists one (appId, secret, token?,
 * encodingAESKey?, pushMode?, windowPolicy?), plus its push data format (`pushFormat`, default xml).
 * Registering an app id the simulator knows replaces its secret, token, key and policy.
 */
export function parseAccountRegistration(
  body: unknown,
): { account: SimulatorAccount } | { problems: string[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { problems: ['body must be a JSON object'] };
  const { pushFormat, ...fields } = body as Record<string, unknown>;
  const account = accountSchema.safeParse(fields);
  const format = formatSchema.safeParse(pushFormat);
  const problems = [
    ...(account.error?.issues ?? []),
    ...(format.error?.issues.map((i) => ({ ...i, path: ['pushFormat'] })) ?? []),
  ].map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`);
  if (!account.success || !format.success || problems.length > 0) return { problems };
  return { account: { ...account.data, pushFormat: format.data ?? 'xml' } };
}
