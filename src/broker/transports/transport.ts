/** Where and how one wake-up is published so that it reaches the due queue after (about) `delayMs`. */
export interface Route {
  readonly exchange: string;
  readonly routingKey: string;
  readonly headers?: Record<string, unknown>;
  /** Ask the broker to return the message when nothing routes it (never on the plugin exchange). */
  readonly mandatory: boolean;
  /** The delay this route actually gives; less than asked when the wait is chained. */
  readonly delayMs: number;
}

export type TransportMode = 'plugin' | 'levels';

/**
 * A delay transport maps a wait to a route. Waits longer than `maxDelayMs` get a route of `maxDelayMs`:
 * the wake-up then arrives early and the worker re-delays the remainder (a chained wait).
 */
export interface DelayTransport {
  readonly mode: TransportMode;
  readonly maxDelayMs: number;
  route(delayMs: number): Route;
}

/** The route of a wake-up that is already due: straight into the due queue through the default exchange. */
export function dueNowRoute(dueQueue: string): Route {
  return { exchange: '', routingKey: dueQueue, mandatory: true, delayMs: 0 };
}
