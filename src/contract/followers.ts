import { z } from 'zod';
import { INTERACTION_KINDS } from './accounts';
import { messageViewSchema } from './messages';
import { eventNameSchema, varsSchema } from './journeys';

const followerStateSchema = z.object({
  subscribed: z.boolean(),
  subscribedAt: z.string().nullable(),
  unsubscribedAt: z.string().nullable(),
  windowKind: z.enum(INTERACTION_KINDS).nullable(),
  windowOpenedAt: z.string().nullable(),
  windowExpiresAt: z.string().nullable(),
  windowRemaining: z.number().nullable(),
  windowOpen: z.boolean().nullable(),
});

const interactionSchema = z.object({ kind: z.string(), detail: z.unknown(), at: z.string() });

const enrollmentSchema = z.object({
  id: z.string(),
  sequenceId: z.string(),
  sequenceName: z.string(),
  version: z.number(),
  enrolledAt: z.string(),
});

/** A message in a follower's timeline: the message's view, with the sequence step it came from. */
export const timelineMessageSchema = messageViewSchema
  .pick({
    id: true,
    channel: true,
    status: true,
    statusReason: true,
    dueAt: true,
    sentAt: true,
    attempts: true,
    message: true,
  })
  .extend({ sequenceId: z.string().nullable(), stepIndex: z.number().nullable() });

/** `GET /v1/followers/:appId/:openid`: everything stored about one follower, newest first. */
export const followerTimelineSchema = z.object({
  appId: z.string(),
  openid: z.string(),
  /** null when the service has never seen the follower. */
  follower: followerStateSchema.nullable(),
  interactions: z.array(interactionSchema),
  enrollments: z.array(enrollmentSchema),
  messages: z.array(timelineMessageSchema),
});

/** `POST /v1/followers/:appId/:openid/events`: something another system knows the follower did. */
export const followerEventRequestSchema = z
  .object({
    name: eventNameSchema,
    /**
     * Values for the variables of the follower's enrollments in the account, merged into theirs (the steps
     * their paths schedule from now on render with them; a wait for a variable with a value is met).
     */
    vars: varsSchema.optional(),
    /** A repeat with the same key answers the first answer and changes nothing. */
    idempotencyKey: z.string().min(1).max(200).optional(),
  })
  .strict();

/** An enrollment the event ended: `reason` names the exit condition, `cancelled` the steps it stopped. */
const exitedEnrollmentSchema = z.object({
  sequenceId: z.string(),
  enrollmentId: z.string(),
  reason: z.string(),
  cancelled: z.number(),
});

/** An enrollment the event started, with how many steps it scheduled. */
const startedEnrollmentSchema = z.object({
  sequenceId: z.string(),
  enrollmentId: z.string(),
  steps: z.number(),
});

/** A journey the event moved on: the wait it met on the enrollment, and the yes path it started. */
const continuedJourneySchema = z.object({
  sequenceId: z.string(),
  enrollmentId: z.string(),
  path: z.string(),
  steps: z.number(),
});

/** The answer to a follower event (`201`, or `200` with the first answer for a repeated idempotencyKey). */
export const followerEventViewSchema = z.object({
  eventId: z.string(),
  name: z.string(),
  at: z.string(),
  exited: z.array(exitedEnrollmentSchema),
  enrolled: z.array(startedEnrollmentSchema),
  /** The waits it met: each one's yes path, started now. */
  continued: z.array(continuedJourneySchema),
  /** How many of the follower's enrollments it converted (their journey's goal, within its period). */
  converted: z.number(),
});

export type FollowerState = z.output<typeof followerStateSchema>;
export type TimelineMessage = z.output<typeof timelineMessageSchema>;
export type FollowerTimeline = z.output<typeof followerTimelineSchema>;
export type ExitedEnrollment = z.output<typeof exitedEnrollmentSchema>;
export type StartedEnrollment = z.output<typeof startedEnrollmentSchema>;
export type ContinuedJourney = z.output<typeof continuedJourneySchema>;
export type FollowerEventView = z.output<typeof followerEventViewSchema>;
