import { WECHAT_ERRORS, type WechatError } from './wechat-errors';
import type { SimInteraction, SimWindowPolicy } from './window-policy';

/** What happened to a follower, as far as the window is concerned. */
export type FollowerEvent = SimInteraction | 'unsubscribe';

/** The simulator's view of one follower (`GET /__sim/users/:openid?appId=`). */
export interface FollowerView {
  readonly appId: string;
  readonly openid: string;
  /** Whether any interaction was ever pushed for this follower. */
  readonly known: boolean;
  /** False only after an unfollow (an unseen follower counts as subscribed). */
  readonly subscribed: boolean;
  /** The latest interaction, which alone defines the window; `at` in epoch ms. */
  readonly lastInteraction: { readonly kind: SimInteraction; readonly at: number } | null;
  /** Custom sends accepted since the latest interaction. */
  readonly used: number;
  /** The current window by the account's policy; null when there is none or it is not enforced. */
  readonly window: {
    readonly policy: SimWindowPolicy['name'];
    readonly count: number;
    readonly windowMs: number;
    /** Epoch ms. */
    readonly closesAt: number;
    readonly open: boolean;
    readonly remaining: number;
  } | null;
  /** False when the simulator was created with `enforceContactWindow: false`. */
  readonly enforced: boolean;
}

/** Follower state and the rules that depend on it. */
export interface Followers {
  /** Records a pushed interaction or an unfollow at `at` (epoch ms). */
  record(appId: string, openid: string, event: FollowerEvent, at: number): void;
  /**
   * Decides a custom send: null lets it through and counts it (the caller accepts it right away),
   * else WeChat's 45015 or 45047.
   */
  admitCustom(appId: string, openid: string, at: number): WechatError | null;
  /** Decides a template send: not window-bound, but unfollowed → 43004. */
  admitTemplate(appId: string, openid: string): WechatError | null;
  view(appId: string, openid: string, at: number): FollowerView;
}

interface FollowerState {
  subscribed: boolean;
  last: { kind: SimInteraction; at: number } | null;
  used: number;
}

/** Options of `createFollowers`. */
export interface FollowersOptions {
  /** Each account's resolved policy. */
  readonly policies: ReadonlyMap<string, SimWindowPolicy>;
  /** False turns every follower check off (tests of other things that never push interactions). */
  readonly enforce: boolean;
}

/**
 * Creates the follower registry that enforces the contact window (DESIGN.md "The WeChat rules"): the
 * latest interaction defines the window and resets the allowance; a custom send is allowed iff the
 * follower is subscribed, `at < interaction + windowMs` and fewer than `count` sends were accepted since.
 * A follower never seen is subscribed with no open window, so a service that sends without an
 * interaction gets the 45015 it would get from WeChat.
 */
export function createFollowers(opts: FollowersOptions): Followers {
  // Only pushed interactions create entries, so a benchmark's million sends cost no memory here.
  const states = new Map<string, FollowerState>();
  const keyOf = (appId: string, openid: string): string => `${appId}\n${openid}`;

  function windowOf(appId: string, state: FollowerState | undefined, at: number): FollowerView['window'] {
    const policy = opts.policies.get(appId);
    if (policy?.rules == null || state?.last == null) return null;
    const { count, windowMs } = policy.rules[state.last.kind];
    const closesAt = state.last.at + windowMs;
    const remaining = Math.max(0, count - state.used);
    return {
      policy: policy.name,
      count,
      windowMs,
      closesAt,
      open: at < closesAt && remaining > 0,
      remaining,
    };
  }

  return {
    record(appId, openid, event, at) {
      const key = keyOf(appId, openid);
      const state = states.get(key) ?? { subscribed: true, last: null, used: 0 };
      states.set(key, state);
      if (event === 'unsubscribe') {
        state.subscribed = false;
        return;
      }
      // A later scan, click or message of an unfollowed user does not resubscribe them; only a follow does.
      if (event === 'subscribe') state.subscribed = true;
      state.last = { kind: event, at };
      state.used = 0;
    },

    admitCustom(appId, openid, at) {
      if (!opts.enforce) return null;
      const state = states.get(keyOf(appId, openid));
      if (state !== undefined && !state.subscribed) return WECHAT_ERRORS.outOfTimeLimit;
      if (opts.policies.get(appId)?.rules == null) return null;
      const window = windowOf(appId, state, at);
      if (window === null || at >= window.closesAt) return WECHAT_ERRORS.outOfTimeLimit;
      if (window.remaining === 0) return WECHAT_ERRORS.outOfResponseCount;
      state!.used += 1;
      return null;
    },

    admitTemplate(appId, openid) {
      if (!opts.enforce) return null;
      const state = states.get(keyOf(appId, openid));
      return state !== undefined && !state.subscribed ? WECHAT_ERRORS.requireSubscribe : null;
    },

    view(appId, openid, at) {
      const state = states.get(keyOf(appId, openid));
      return {
        appId,
        openid,
        known: state !== undefined,
        subscribed: state?.subscribed ?? true,
        lastInteraction: state?.last === null || state === undefined ? null : { ...state.last },
        used: state?.used ?? 0,
        window: windowOf(appId, state, at),
        enforced: opts.enforce,
      };
    },
  };
}
