/**
 * The shapes of the /v1 requests and answers the admin app uses, derived from the server's contract
 * (src/contract, docs/api.md "HTTP API"): type-only imports, so nothing of it, and no zod, reaches the
 * browser.
 */
import type { SequenceBody as SequenceRequest, StepView } from '../../src/contract/index.js';

export type {
  AccountCheck,
  AccountConnected,
  AccountDeleted,
  AccountPatch,
  AccountView as Account,
  AuditAction,
  AuditEntry,
  AuditList,
  CreatedKey,
  KeyList,
  KeyOperation,
  KeyView,
  AuthorizationStarted,
  DeliveryAttempt,
  ErrorDetail,
  ErrorRule,
  ExitCondition,
  FollowerTimeline,
  InteractionKind,
  /** A message as `GET /v1/messages/:id` answers it, with its delivery attempts. */
  MessageDetail as Message,
  MessageView,
  PlatformView,
  SequenceResults,
  SequenceStatus,
  SequenceValid,
  SequenceView as Sequence,
  SeriesPoint,
  StepResult,
  PathResult,
  TemplateMessageView as TemplateMessage,
  TemplateLibraryView,
  QrCodeView,
  UploadedMediaView,
  LibraryTemplateView,
  TimelineMessage,
  Trigger,
  WindowPolicyView as WindowPolicy,
  WindowRule,
  Goal,
  GoalInput,
  JourneyPathView as JourneyPath,
  Wait,
  WaitCondition,
  WaitInput,
} from '../../src/contract/index.js';

/** A WeChat payload as JSON; the forms build and read these. */
export type Json = Record<string, unknown>;

/** A step as the API answers it; the editor builds them too, and may leave the fallback out. */
export type Step = Omit<StepView, 'fallback'> & Partial<Pick<StepView, 'fallback'>>;
/** What POST/PUT /v1/sequences and /v1/sequences/validate take, with the steps as the editor builds them. */
export type SequenceBody = Omit<SequenceRequest, 'steps'> & { steps: Step[] };
