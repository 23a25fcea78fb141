/** Lifecycle of a scheduled message. `pending` → `queued` → `sending` → one of the final states. */
export const MESSAGE_STATUS = {
  pending: 'pending',
  queued: 'queued',
  sending: 'sending',
  sent: 'sent',
  skipped: 'skipped',
  cancelled: 'cancelled',
  failed: 'failed',
  unknown: 'unknown',
} as const;
export type MessageStatus = (typeof MESSAGE_STATUS)[keyof typeof MESSAGE_STATUS];

/** States from which a message may still be sent (and so may still be cancelled). */
export const OPEN_STATUSES: readonly MessageStatus[] = ['pending', 'queued'];

export const CHANNELS = ['custom', 'template'] as const;
export type Channel = (typeof CHANNELS)[number];
