import { z } from 'zod';
import { createCountedSetting, parseSpec } from './counted-setting';

/** The send APIs a fault can be limited to. */
export const FAULT_CHANNELS = ['custom', 'template', 'notice'] as const;
export type FaultChannel = (typeof FAULT_CHANNELS)[number];

/** The faults applied to send requests (custom and template); tokens and /__sim routes are never faulted. */
export interface FaultSpec {
  /** Share of sends answered with `errcode`, 0..1. */
  readonly errorRate: number;
  /** The errcode injected by `errorRate`; default -1 (system error). */
  readonly errcode: number;
  /** Extra delay before every answer, in ms. */
  readonly latencyMs: number;
  /** When > 0, sends get no answer for this long and the connection is then dropped. */
  readonly hangMs: number;
  /** When set, every send answers this errcode. */
  readonly forceErrcode: number | null;
  /** Apply to the next N sends only, then clear; null = until cleared. */
  readonly count: number | null;
  /**
   * Only sends on this API are faulted (and counted against `count`), e.g. `template` for the template
   * errcodes 43116 / 43117 / 40249; null = every send.
   */
  readonly channel: FaultChannel | null;
}

/** What to do with one send. */
export type FaultDecision =
  | { readonly kind: 'none'; readonly latencyMs: number }
  | { readonly kind: 'error'; readonly errcode: number; readonly latencyMs: number }
  | { readonly kind: 'hang'; readonly hangMs: number };

const FAULT_SCHEMA = z.strictObject({
  errorRate: z.number().min(0).max(1).default(0),
  errcode: z.number().int().default(-1),
  latencyMs: z.number().int().min(0).max(600_000).default(0),
  hangMs: z.number().int().min(0).max(600_000).default(0),
  forceErrcode: z.number().int().nullable().default(null),
  count: z.number().int().positive().nullable().default(null),
  channel: z.enum(FAULT_CHANNELS).nullable().default(null),
});

/** Validates a `POST /__sim/faults` body; returns the spec or the list of problems. */
export const parseFaultSpec = (input: unknown): { spec: FaultSpec } | { problems: string[] } =>
  parseSpec(FAULT_SCHEMA, input);

/** The fault state of one simulator. A new spec replaces the previous one; it does not merge. */
export interface Faults {
  set(spec: FaultSpec): void;
  clear(): void;
  current(): FaultSpec | null;
  /** Decides the fate of the next send on `channel` and counts it against `count` when it applies. */
  next(channel: FaultChannel): FaultDecision;
}

const NO_FAULT: FaultDecision = Object.freeze({ kind: 'none', latencyMs: 0 });

/** Creates the fault state; `random` is injectable so tests of the rate can be exact. */
export function createFaults(random: () => number = Math.random): Faults {
  const setting = createCountedSetting<FaultSpec>();
  return {
    set: setting.set,
    clear: setting.clear,
    current: setting.current,
    next(channel) {
      const current = setting.current();
      if (current === null || (current.channel !== null && current.channel !== channel)) return NO_FAULT;
      const s = setting.take()!;
      if (s.hangMs > 0) return { kind: 'hang', hangMs: s.hangMs };
      if (s.forceErrcode !== null) return { kind: 'error', errcode: s.forceErrcode, latencyMs: s.latencyMs };
      if (s.errorRate > 0 && random() < s.errorRate) {
        return { kind: 'error', errcode: s.errcode, latencyMs: s.latencyMs };
      }
      return { kind: 'none', latencyMs: s.latencyMs };
    },
  };
}
