import { WECHAT_ERRORS, type WechatError } from './wechat-errors';

/** A follower's answer to one template in a subscription-notice popup. */
export interface SimNoticeAnswer {
  readonly templateId: string;
  readonly status: 'accept' | 'reject';
}

/** The simulator's record of subscription-notice acceptances, per account, follower and template. */
export interface NoticeSubscriptions {
  /** Records a popup's answers: each acceptance allows one more send, a rejection takes all away. */
  answer(appId: string, openid: string, answers: readonly SimNoticeAnswer[]): void;
  /** Decides a bizsend: null lets it through and consumes one acceptance, else WeChat's 43101. */
  admit(appId: string, openid: string, templateId: string): WechatError | null;
}

/**
 * Creates the registry. One-time subscriptions as WeChat staff describe them: "订阅1次可下发1次，次数用完或者是
 * 用户拒绝就会报错43101" (reference/wechat-platform.md §2.1); repeated acceptances add up.
 */
export function createNoticeSubscriptions(): NoticeSubscriptions {
  const left = new Map<string, number>();
  const keyOf = (appId: string, openid: string, templateId: string): string =>
    `${appId}\n${openid}\n${templateId}`;
  return {
    answer(appId, openid, answers) {
      for (const a of answers) {
        const key = keyOf(appId, openid, a.templateId);
        left.set(key, a.status === 'accept' ? (left.get(key) ?? 0) + 1 : 0);
      }
    },
    admit(appId, openid, templateId) {
      const key = keyOf(appId, openid, templateId);
      const n = left.get(key) ?? 0;
      if (n === 0) return WECHAT_ERRORS.userRefused;
      left.set(key, n - 1);
      return null;
    },
  };
}
