-- The spine: scheduled messages (the outbox), the cancellation ledger, delivery attempts, access tokens
-- and per-account send state. Append-only: later changes go in new numbered files.

-- One sequence orders messages and cancellations, so "a cancellation applies to what existed before it"
-- holds even inside one transaction (cancel + reschedule with the same cancel key).
CREATE SEQUENCE drip_seq;

CREATE TABLE scheduled_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint NOT NULL DEFAULT nextval('drip_seq'),
  app_id text NOT NULL,
  openid text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('custom', 'template')),
  payload jsonb NOT NULL,
  due_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'queued', 'sending', 'sent', 'skipped', 'cancelled', 'failed', 'unknown')),
  -- why a row is skipped / failed / cancelled: 'window_closed', 'errcode:40003', 'ledger', ...
  status_reason text,
  attempts integer NOT NULL DEFAULT 0,
  idempotency_key text,
  request_hash text,
  cancel_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  claimed_at timestamptz,
  sent_at timestamptz
);

CREATE UNIQUE INDEX scheduled_messages_idempotency ON scheduled_messages (app_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX scheduled_messages_cancel_key ON scheduled_messages (app_id, cancel_key)
  WHERE cancel_key IS NOT NULL;
CREATE INDEX scheduled_messages_follower ON scheduled_messages (app_id, openid);
-- The relay's and the sweeper's work lists stay small: only rows that are not finished.
CREATE INDEX scheduled_messages_open ON scheduled_messages (status, updated_at)
  WHERE status IN ('pending', 'queued', 'sending');

-- Append-only: a row is never updated or deleted by the service.
CREATE TABLE cancellations (
  id bigserial PRIMARY KEY,
  seq bigint NOT NULL DEFAULT nextval('drip_seq'),
  app_id text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('message', 'cancel_key', 'follower', 'sequence', 'enrollment')),
  target text NOT NULL,
  reason text NOT NULL,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cancellations_target ON cancellations (app_id, scope, target, seq);

CREATE TABLE delivery_attempts (
  id bigserial PRIMARY KEY,
  message_id uuid NOT NULL REFERENCES scheduled_messages (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  -- null when no answer came back (network error, timeout)
  errcode integer,
  errmsg text,
  duration_ms integer NOT NULL,
  outcome text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id);

-- One cached access token per account, shared by every process.
CREATE TABLE access_tokens (
  app_id text PRIMARY KEY,
  token text NOT NULL,
  expires_at timestamptz NOT NULL,
  refreshed_at timestamptz NOT NULL DEFAULT now()
);

-- Sending state per account: set when WeChat answers 45009 (daily quota reached).
CREATE TABLE account_states (
  app_id text PRIMARY KEY,
  paused_until timestamptz,
  paused_reason text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
