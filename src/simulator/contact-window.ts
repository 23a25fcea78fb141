import type { WechatError } from './wechat-errors';

/**
 * Decides whether a customer-service send to this follower falls inside its contact window, answering
 * WeChat's 45015 (window closed) or 45047 (quota used up), or null to let it through. Called once per
 * custom/send that passed every other check, never for template sends (they are not window-bound).
 *
 * This is the seam where window enforcement (reference/wechat.md §2) plugs in; it is not implemented
 * yet, so the default lets every send through.
 */
export type ContactWindowCheck = (appId: string, openid: string, atMs: number) => WechatError | null;

/** The default until window enforcement exists: every window is open. */
export const ALWAYS_OPEN: ContactWindowCheck = () => null;
