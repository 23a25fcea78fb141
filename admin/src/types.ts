/** The shapes of the /v1 answers the admin app reads (see README "HTTP API"). */

export type Trigger =
  | { type: 'subscribe'; scene?: string }
  | { type: 'scan'; scene: string }
  | { type: 'click'; key: string }
  | { type: 'keyword'; keyword: string };

/** A WeChat payload as JSON; the forms build and read these. */
export type Json = Record<string, unknown>;

export interface TemplateMessage {
  template_id: string;
  url?: string;
  data: Record<string, { value: string; color?: string }>;
  [extra: string]: unknown;
}

export interface Step {
  offsetMs: number;
  message: Json;
  fallback?: TemplateMessage | null;
  maxLatenessMs?: number;
}

export type SequenceStatus = 'draft' | 'active' | 'paused' | 'archived';

export interface Sequence {
  id: string;
  appId: string;
  name: string;
  status: SequenceStatus;
  version: number;
  oncePerFollower: boolean;
  trigger: Trigger;
  steps: Step[];
  createdAt: string;
  updatedAt: string;
  pendingSteps?: number;
  cancelledSteps?: number;
}

/** What POST/PUT /v1/sequences and /v1/sequences/validate take. */
export interface SequenceBody {
  appId: string;
  name: string;
  trigger: Trigger;
  steps: Step[];
  oncePerFollower: boolean;
  status?: 'draft' | 'active';
}

export type InteractionKind = 'message' | 'subscribe' | 'scan' | 'click';
export interface WindowRule {
  count: number;
  windowMs: number;
}
export type WindowPolicy = Record<InteractionKind, WindowRule> | null;

export interface Account {
  appId: string;
  pushMode: string;
  webhook: boolean;
  policyName: 'official' | 'legacy-48h' | 'none' | 'custom';
  windowPolicy: WindowPolicy;
}

export interface StepResult {
  stepIndex: number;
  scheduled: number;
  pending: number;
  sent: number;
  cancelled: number;
  unknown: number;
  skipped: Record<string, number>;
  failed: Record<string, number>;
  latenessMs: { p50: number; p95: number; max: number } | null;
}

export interface SeriesPoint {
  at: string;
  sent: number;
  skipped: number;
  failed: number;
}

export interface SequenceResults {
  sequenceId: string;
  enrolled: number;
  steps: StepResult[];
  series: SeriesPoint[];
}

export interface Message {
  id: string;
  appId?: string;
  openid?: string;
  channel: 'custom' | 'template';
  status: string;
  statusReason: string | null;
  dueAt: string;
  sentAt: string | null;
  attempts: number;
  sequenceId?: string | null;
  stepIndex?: number | null;
  message: Json | null;
  deliveryAttempts?: DeliveryAttempt[];
}

export interface DeliveryAttempt {
  attempt: number;
  errcode: number | null;
  errmsg: string | null;
  durationMs: number;
  outcome: string;
  at: string;
}

export interface FollowerTimeline {
  appId: string;
  openid: string;
  follower: {
    subscribed: boolean;
    subscribedAt?: string | null;
    unsubscribedAt?: string | null;
    windowKind: InteractionKind | null;
    windowOpenedAt: string | null;
    windowExpiresAt: string | null;
    windowRemaining: number | null;
    windowOpen: boolean | null;
  } | null;
  interactions: { kind: string; detail: unknown; at: string }[];
  enrollments: {
    id: string;
    sequenceId: string;
    sequenceName: string;
    version: number;
    enrolledAt: string;
  }[];
  messages: Message[];
}

export interface ErrorDetail {
  path: string;
  message: string;
}
