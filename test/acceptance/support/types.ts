/**
 * The shapes of the public answers the acceptance tests read, written from the README and docs/ (not imported from
 * src/: these tests see the service only from the outside).
 */

/** `{ error: { code, message, details? } }`, the body of every 4xx. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: unknown };
}

/** A message as `POST/GET/PUT/DELETE /v1/messages…` answer it. */
export interface MessageView {
  readonly id: string;
  readonly appId: string;
  readonly openid: string | null;
  readonly channel: 'custom' | 'template' | 'notice';
  readonly status: string;
  readonly statusReason: string | null;
  readonly dueAt: string;
  readonly attempts: number;
  readonly sentAt: string | null;
  readonly cancelKey: string | null;
  readonly message: unknown;
  /** A sent subscription notice's delivery report (`success`, `failed:<ErrorCode>`), else null. */
  readonly noticeResult: string | null;
  /** A sent template message's delivery report (`delivered`, `failed_freq_limit`, …), else null. */
  readonly deliveryReport: string | null;
  /** GET only. */
  readonly deliveryAttempts?: readonly Record<string, unknown>[];
  /** PUT /v1/messages/:id only. */
  readonly replaces?: string;
  /** PUT /v1/messages/by-key/… only. */
  readonly cancelled?: number;
}

/** `POST /v1/cancellations` → 201. */
export interface CancellationView {
  readonly id: string;
  readonly scope: string;
  readonly target: string;
  readonly matched: number;
}

/** `POST /v1/cancellations {ids, reason}` → 200 (docs/api.md "Cancelling messages by id, in bulk"). */
export interface CancelByIdsView {
  readonly cancelled: number;
  readonly alreadyCancelled: number;
  readonly notCancellable: number;
  readonly notFound: number;
  readonly results: readonly {
    readonly id: string;
    readonly outcome: 'cancelled' | 'already_cancelled' | 'not_cancellable' | 'not_found';
    readonly status?: string;
  }[];
}

/** One line of the `POST /v1/messages/batch` answer. */
export type BatchLine =
  | {
      readonly line: number;
      readonly ok: true;
      readonly id: string;
      readonly status: string;
      readonly created: boolean;
    }
  | ({ readonly line: number; readonly ok: false } & ErrorBody)
  | { readonly summary: { readonly lines: number; readonly accepted: number; readonly rejected: number } };

/** `GET /v1/followers/:appId/:openid`. */
export interface FollowerTimeline {
  readonly follower: Record<string, unknown> | null;
  readonly interactions: readonly Record<string, unknown>[];
  readonly enrollments: readonly Record<string, unknown>[];
  readonly messages: readonly (Record<string, unknown> & { status: string; statusReason: string | null })[];
}

/** A sequence as `/v1/sequences…` answer it. */
export interface SequenceView {
  readonly id: string;
  readonly status: string;
  /** pause / archive only: how many pending steps it cancelled. */
  readonly cancelledSteps?: number;
}

/** `POST /v1/followers/:appId/:openid/events` (docs/api.md "Follower events from other systems"). */
export interface FollowerEventView {
  readonly eventId: string;
  readonly name: string;
  readonly at: string;
  readonly exited: readonly {
    readonly sequenceId: string;
    readonly enrollmentId: string;
    readonly reason: string;
    readonly cancelled: number;
  }[];
  readonly enrolled: readonly {
    readonly sequenceId: string;
    readonly enrollmentId: string;
    readonly steps: number;
  }[];
  /** The journeys whose wait the event met, each with the yes path it started. */
  readonly continued: readonly {
    readonly sequenceId: string;
    readonly enrollmentId: string;
    readonly path: string;
    readonly steps: number;
  }[];
  /** How many of the follower's enrollments it converted (their journey's goal). */
  readonly converted: number;
}

/** One send the simulator accepted (`GET /__sim/messages`). */
export interface SimMessage {
  readonly seq: number;
  readonly appId: string;
  readonly openid: string;
  readonly channel: 'custom' | 'template' | 'notice';
  readonly msgtype: string;
  readonly body: Record<string, any>;
  readonly receivedAt: number;
  /** Template sends: what the follower sees (docs/simulator.md). */
  readonly shown?: { title: string; fields: { key: string; label: string; value: string }[] };
}

/** What the webhook answered to a simulated follower action. */
export interface PushOutcome {
  readonly fields: Readonly<Record<string, string>>;
  /** The request as it went out: what someone who captured it holds. */
  readonly wire: { readonly path: string; readonly body: string; readonly contentType: string };
  /** Each delivery's answer; `ms`: the time to the full answer, as the simulator measured it. */
  readonly pushes: readonly { readonly status: number; readonly body: string; readonly ms: number }[];
}

/** One account of WECHAT_ACCOUNTS, as docs/configuration.md "Configuration" describes it. */
export interface Account {
  readonly appId: string;
  readonly secret: string;
  readonly token?: string;
  readonly encodingAESKey?: string;
  readonly pushMode?: 'plaintext' | 'compatible' | 'safe';
  readonly windowPolicy?: string | Record<string, { count: number; windowMs: number }>;
  readonly sendRatePerSecond?: number;
}
