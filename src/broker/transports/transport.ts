import type { TopologyChannel } from '../topology';

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

/** Which transport: labels the published-wake-ups metric, the transport-info gauge and /readyz. */
export type TransportMode = 'plugin' | 'levels';

/**
 * A delay transport maps a wait to a route, and declares the broker objects its routes go through.
 * Waits longer than `maxDelayMs` get a route of `maxDelayMs`: the wake-up then arrives early and the
 * worker re-delays the remainder (a chained wait).
 */
export interface DelayTransport {
  readonly mode: TransportMode;
  readonly maxDelayMs: number;
  /**
   * How much before its due time a wake-up may arrive by design (0: never early). The worker holds such
   * a wake-up, unacknowledged, for the remainder (worker/hold.ts).
   */
  readonly earlyMs: number;
  route(delayMs: number): Route;
  /**
   * Declares this transport's exchanges, queues and bindings on top of the core ones (`declareCore`,
   * which must come first: the transport binds to the due queue). Called from the publisher channel's
   * setup, so it runs again on every reconnect and must only assert.
   */
  declare(channel: TopologyChannel): Promise<void>;
}

/** The route of a wake-up that is already due: straight into the due queue through the default exchange. */
export function dueNowRoute(dueQueue: string): Route {
  return { exchange: '', routingKey: dueQueue, mandatory: true, delayMs: 0 };
}
