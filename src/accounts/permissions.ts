import type { Account } from './account';

/** The send channels whose permission a platform account may lack. */
export type PermissionChannel = 'custom' | 'template';

/** The permission sets (func_info ids) that allow each channel (reference/wechat-platform.md §0.6, §1.8). */
const CHANNEL_PERMISSIONS: Readonly<Record<PermissionChannel, readonly number[]>> = {
  custom: [1, 6, 19, 100, 101],
  template: [7, 100, 101],
};

/** The channels a platform account's granted permission sets do not allow; none for an own account. */
export function missingPermissions(a: Pick<Account, 'kind' | 'funcInfo'>): PermissionChannel[] {
  if (a.kind !== 'platform') return [];
  const granted = new Set(a.funcInfo ?? []);
  return (['custom', 'template'] as const).filter(
    (c) => !CHANNEL_PERMISSIONS[c].some((id) => granted.has(id)),
  );
}

/** Why a step cannot use `channel`, in words an editor can act on. */
export const missingPermissionMessage = (channel: PermissionChannel): string =>
  channel === 'custom'
    ? 'the account has not granted the platform customer-service messages (permission set 1 消息管理): it must authorize again granting it'
    : 'the account has not granted the platform template messages (permission set 7 群发与通知): it must authorize again granting it';
