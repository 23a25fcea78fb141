-- Follow → drip: webhook pushes (deduplicated), followers and their contact window, interactions,
-- marketing's sequences with versions, and enrollments.

-- One row per authentic push, keyed so WeChat's retries (and a second api process) insert nothing new.
-- `fields` is the push as received: personal data, cleared when the follower unfollows.
CREATE TABLE webhook_pushes (
  id bigserial PRIMARY KEY,
  app_id text NOT NULL,
  dedupe_key text NOT NULL,
  openid text,
  msg_type text NOT NULL,
  event text,
  fields jsonb,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  outcome text,
  UNIQUE (app_id, dedupe_key)
);
CREATE INDEX webhook_pushes_unprocessed ON webhook_pushes (received_at) WHERE processed_at IS NULL;

-- The follower's subscription and current contact window (the latest interaction resets it).
CREATE TABLE followers (
  app_id text NOT NULL,
  openid text NOT NULL,
  subscribed boolean NOT NULL DEFAULT true,
  subscribed_at timestamptz,
  unsubscribed_at timestamptz,
  window_kind text,
  window_opened_at timestamptz,
  window_expires_at timestamptz,
  window_remaining integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, openid)
);

-- Interaction history: personal data, deleted when the follower unfollows.
CREATE TABLE interactions (
  id bigserial PRIMARY KEY,
  app_id text NOT NULL,
  openid text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('message', 'subscribe', 'scan', 'click')),
  detail text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX interactions_follower ON interactions (app_id, openid, created_at);

CREATE TABLE sequences (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id text NOT NULL,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused', 'archived')),
  current_version integer NOT NULL DEFAULT 1,
  once_per_follower boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sequences_app_status ON sequences (app_id, status);

-- Versions are never edited: editing a sequence adds one; running enrollments keep theirs.
CREATE TABLE sequence_versions (
  sequence_id uuid NOT NULL REFERENCES sequences (id),
  version integer NOT NULL,
  trigger jsonb NOT NULL,
  steps jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sequence_id, version)
);

-- `dedupe` is the push's dedupe key, or the openid for once-per-follower sequences: one enrollment each.
CREATE TABLE enrollments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id text NOT NULL,
  openid text NOT NULL,
  sequence_id uuid NOT NULL REFERENCES sequences (id),
  version integer NOT NULL,
  dedupe text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sequence_id, dedupe)
);
CREATE INDEX enrollments_follower ON enrollments (app_id, openid);

ALTER TABLE scheduled_messages
  ADD COLUMN sequence_id uuid,
  ADD COLUMN enrollment_id uuid,
  ADD COLUMN step_index integer,
  -- template payload sent instead when the contact window is closed at due time
  ADD COLUMN fallback jsonb;
CREATE INDEX scheduled_messages_sequence ON scheduled_messages (sequence_id, step_index)
  WHERE sequence_id IS NOT NULL;
