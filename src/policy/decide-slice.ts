import { decide } from './decide';
import { CLAIMED_AS, type Decision, EARLY_REASON } from './decision';
import { cappedToday, countsAgainstCap, type Used } from './rules';
import type { ClaimSnapshot, FollowerSnapshot, PolicyClock, PolicyOptions } from './snapshot';

/** A follower's counters after the slice, for a follower whose window or cap count it spent. */
export interface FollowerCounters {
  readonly appId: string;
  readonly openid: string;
  readonly windowRemaining: number;
  readonly cappedDay: string | null;
  readonly cappedSent: number;
}

/** A follower's acceptances of one notice template left after the slice, where it spent some. */
export interface AcceptanceCounters {
  readonly appId: string;
  readonly openid: string;
  readonly templateId: string;
  readonly remaining: number;
}

/** The decisions of a slice, in its order, and the counters they leave. */
export interface SliceDecisions {
  readonly decisions: readonly { readonly snapshot: ClaimSnapshot; readonly decision: Decision }[];
  readonly followers: readonly FollowerCounters[];
  readonly acceptances: readonly AcceptanceCounters[];
}

type Tally = Map<string, number>;
const followerKey = (s: ClaimSnapshot) => `${s.message.appId}\n${s.message.openid}`;
const acceptanceKey = (s: ClaimSnapshot) => `${followerKey(s)}\n${s.message.noticeTemplate}`;
const bump = (tally: Tally, key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);

/**
 * Decides a claimed slice, given in due order (due time, then id): each message with `decide`, the
 * running counters it shares with the earlier ones (the follower's window allowance and capped sends,
 * its acceptances of a notice template, its messages moved for quiet hours, the account's messages
 * waiting for its rate) kept here as explicit state and counted only for what actually goes out or moves.
 */
export function decideSlice(
  snapshots: readonly ClaimSnapshot[],
  clock: PolicyClock,
  options: PolicyOptions,
): SliceDecisions {
  const window: Tally = new Map();
  const quietMoved: Tally = new Map();
  const capped: Tally = new Map();
  const accepted: Tally = new Map();
  const rateHeld: Tally = new Map();
  const followers = new Map<string, { appId: string; openid: string; row: FollowerSnapshot }>();
  const templates = new Map<string, AcceptanceCounters>();

  const decisions = snapshots.map((snapshot) => {
    const f = followerKey(snapshot);
    const a = acceptanceKey(snapshot);
    const used: Used = {
      window: window.get(f) ?? 0,
      quietMoved: quietMoved.get(f) ?? 0,
      capped: capped.get(f) ?? 0,
      acceptances: accepted.get(a) ?? 0,
      rateHeld: rateHeld.get(snapshot.message.appId) ?? 0,
    };
    const decision = decide(snapshot, clock, used, options);
    if (decision.kind === 'early' && decision.reason === EARLY_REASON.sendRate)
      bump(rateHeld, snapshot.message.appId);
    if (decision.kind === 'move' && decision.reason === EARLY_REASON.quietHours) bump(quietMoved, f);
    if (decision.kind === 'send') {
      const { appId, openid, noticeTemplate } = snapshot.message;
      if (snapshot.follower !== null) followers.set(f, { appId, openid, row: snapshot.follower });
      if (decision.as === CLAIMED_AS.window) bump(window, f);
      if (countsAgainstCap(snapshot)) bump(capped, f);
      if (decision.channel === 'notice') {
        bump(accepted, a);
        templates.set(a, { appId, openid, templateId: noticeTemplate!, remaining: snapshot.acceptancesLeft });
      }
    }
    return { snapshot, decision };
  });

  return {
    decisions,
    followers: [...followers].flatMap(([key, { appId, openid, row }]): FollowerCounters[] => {
      const windowUsed = window.get(key) ?? 0;
      const cappedSent = capped.get(key) ?? 0;
      if (windowUsed === 0 && cappedSent === 0) return [];
      const counts =
        cappedSent === 0
          ? { cappedDay: row.cappedDay, cappedSent: row.cappedSent }
          : { cappedDay: clock.capDay, cappedSent: cappedToday(row, clock) + cappedSent };
      return [{ appId, openid, windowRemaining: row.windowRemaining - windowUsed, ...counts }];
    }),
    acceptances: [...templates].map(([key, t]) => ({ ...t, remaining: t.remaining - accepted.get(key)! })),
  };
}
