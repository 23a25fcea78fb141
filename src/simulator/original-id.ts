import { createHash } from 'node:crypto';

/**
 * A simulated account's original id (原始ID): `gh_` and 12 hex digits, derived from its app id so that the
 * pushes' ToUserName and api_get_authorizer_info's user_name agree across restarts.
 */
export const originalIdOf = (appId: string): string =>
  `gh_${createHash('sha1').update(appId).digest('hex').slice(0, 12)}`;
