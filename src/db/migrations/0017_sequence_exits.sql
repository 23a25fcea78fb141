-- Exit conditions per sequence, and the events other systems post for followers.

-- Kept per version like the trigger; the current version's conditions apply to every running enrollment.
ALTER TABLE sequence_versions ADD COLUMN exits jsonb NOT NULL DEFAULT '[]';

-- `POST /v1/followers/:appId/:openid/events`. `answer` is what the first request was answered, so that a
-- repeated idempotency key answers it again. The openid is personal data: cleared when the follower
-- unfollows (the row stays, anonymous, for its idempotency key).
CREATE TABLE follower_events (
  id bigserial PRIMARY KEY,
  app_id text NOT NULL,
  openid text NOT NULL,
  name text NOT NULL,
  idempotency_key text,
  answer jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX follower_events_idempotency ON follower_events (app_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX follower_events_follower ON follower_events (app_id, openid);
