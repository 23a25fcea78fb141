// The user actions that open a customer-service contact window (reference/wechat.md §2.1), and a window's
// rule (messages allowed, for how many ms), are the contract's: the account view and the store use them.
// What a rule means for a step (src/policy/window-rule.ts) is the policy's; here are WeChat's tables.
import type { InteractionKind, WindowPolicyInput, WindowRule } from '../contract';
import type { WindowPolicy } from '../policy/window-rule';

export type { InteractionKind, WindowPolicy, WindowRule };

const MINUTE_MS = 60_000;
const HOURS_48_MS = 48 * 3600_000;

/**
 * Named policies. `official`: the current table (user message 5 / 48 h; follow, scan, menu click
 * 3 / 1 min). `legacy-48h`: older accounts' rules, 20 / 48 h for every interaction. `none`: no local check,
 * for accounts whose webhook does not point here (the service cannot see their interactions).
 */
export const WINDOW_PRESETS: Readonly<Record<'official' | 'legacy-48h' | 'none', WindowPolicy>> = {
  official: {
    message: { count: 5, windowMs: HOURS_48_MS },
    subscribe: { count: 3, windowMs: MINUTE_MS },
    scan: { count: 3, windowMs: MINUTE_MS },
    click: { count: 3, windowMs: MINUTE_MS },
  },
  'legacy-48h': {
    message: { count: 20, windowMs: HOURS_48_MS },
    subscribe: { count: 20, windowMs: HOURS_48_MS },
    scan: { count: 20, windowMs: HOURS_48_MS },
    click: { count: 20, windowMs: HOURS_48_MS },
  },
  none: null,
};

/** The rules a written window policy stands for: a preset's table, or the custom rules themselves. */
export function resolveWindowPolicy(input: WindowPolicyInput): WindowPolicy {
  return typeof input === 'string' ? WINDOW_PRESETS[input] : input;
}

/** A human description of a window, for validation messages ("3 messages within 1 min"). */
export function describeRule(kind: InteractionKind, rule: WindowRule): string {
  const label = {
    message: 'a user message',
    subscribe: 'a follow',
    scan: 'a QR scan',
    click: 'a menu click',
  }[kind];
  return `${label} allows ${rule.count} message${rule.count === 1 ? '' : 's'} within ${formatDuration(rule.windowMs)}`;
}

/** 90_000 → "1 min 30 s", 7_200_000 → "2 h". */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  let rest = ms;
  for (const [size, name] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.length ? parts.join(' ') : `${ms} ms`;
}
