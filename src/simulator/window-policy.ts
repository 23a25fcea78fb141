import { z } from 'zod';

/**
 * The simulator's own statement of WeChat's contact-window rules (reference/wechat.md §2.1). Written
 * apart from the service's policy on purpose: the simulator is the referee that catches the service
 * getting the rules wrong, so it must not share the service's code.
 */

/** The interactions that open a window. */
export const SIM_INTERACTIONS = ['message', 'subscribe', 'scan', 'click'] as const;
export type SimInteraction = (typeof SIM_INTERACTIONS)[number];

/** How many custom sends an interaction allows, and for how long. */
export interface SimWindowRule {
  readonly count: number;
  readonly windowMs: number;
}

/** Custom rules: every interaction kind must be given. */
export type SimWindowRules = Readonly<Record<SimInteraction, SimWindowRule>>;

/** An account's `windowPolicy` as configured: a preset name or custom rules. */
export type WindowPolicySpec = 'official' | 'legacy-48h' | 'none' | SimWindowRules;

/** A policy ready to enforce; `rules` null means the account's windows are not enforced. */
export interface SimWindowPolicy {
  readonly name: 'official' | 'legacy-48h' | 'none' | 'custom';
  readonly rules: SimWindowRules | null;
}

const MINUTE_MS = 60_000;
const HOURS_48_MS = 48 * 60 * MINUTE_MS;
const rule = (count: number, windowMs: number): SimWindowRule => Object.freeze({ count, windowMs });

const PRESETS: Readonly<Record<'official' | 'legacy-48h' | 'none', SimWindowRules | null>> = {
  // The current table: user message 5 / 48 h; follow, scan, menu click 3 / 1 min.
  official: Object.freeze({
    message: rule(5, HOURS_48_MS),
    subscribe: rule(3, MINUTE_MS),
    scan: rule(3, MINUTE_MS),
    click: rule(3, MINUTE_MS),
  }),
  // Older accounts and pre-2023 rules: 20 / 48 h for every interaction.
  'legacy-48h': Object.freeze({
    message: rule(20, HOURS_48_MS),
    subscribe: rule(20, HOURS_48_MS),
    scan: rule(20, HOURS_48_MS),
    click: rule(20, HOURS_48_MS),
  }),
  none: null,
};

const ruleSchema = z
  .object({
    count: z.number().int().min(0),
    windowMs: z.number().int().min(1),
  })
  .strict();

/** Validates a `windowPolicy` value (accounts JSON or createSimulator option). */
export const windowPolicySchema = z.union([
  z.enum(['official', 'legacy-48h', 'none']),
  z.object({ message: ruleSchema, subscribe: ruleSchema, scan: ruleSchema, click: ruleSchema }).strict(),
]);

/** Turns a spec (default `official`) into an enforceable policy; throws TypeError for invalid custom rules. */
export function resolveWindowPolicy(spec: WindowPolicySpec = 'official'): SimWindowPolicy {
  const parsed = windowPolicySchema.safeParse(spec);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'windowPolicy'}: ${i.message}`);
    throw new TypeError(`invalid windowPolicy: ${problems.join('; ')}`);
  }
  const value = parsed.data;
  if (typeof value === 'string') return { name: value, rules: PRESETS[value] };
  return {
    name: 'custom',
    rules: Object.freeze({
      message: rule(value.message.count, value.message.windowMs),
      subscribe: rule(value.subscribe.count, value.subscribe.windowMs),
      scan: rule(value.scan.count, value.scan.windowMs),
      click: rule(value.click.count, value.click.windowMs),
    }),
  };
}
