-- The window's last chance (issue 25): a step timed by the end of the follower's contact window rather
-- than by its path's start ("30 minutes before the window closes"). Its message is scheduled like any
-- step's; this table remembers what it is so that each new interaction of the follower moves it — the
-- scheduled message is cancelled and an identical one scheduled for the new window's end (a reschedule,
-- cancel + insert, in the push's transaction). `message_id` is the current message. The rendered content
-- is kept here so a move needs no read of the message row. A row is open (`settled_at` null) until an
-- interaction finds its message sent (`recovered_at`: the follower came back after the last chance) or
-- no longer pending (cancelled, skipped, failed: nothing to move). An unfollow erases the openid and the
-- content and settles the row; the counts stay.
CREATE TABLE last_chance_steps (
  enrollment_id uuid NOT NULL REFERENCES enrollments (id) ON DELETE CASCADE,
  step_index integer NOT NULL,
  app_id text NOT NULL,
  openid text NOT NULL,
  sequence_id uuid NOT NULL,
  version integer NOT NULL,
  variant text,
  before_close_ms bigint NOT NULL,
  message_id uuid NOT NULL,
  due_at timestamptz NOT NULL,
  payload jsonb NOT NULL,
  fallback jsonb,
  fallback_channel text,
  max_lateness_ms integer,
  moves integer NOT NULL DEFAULT 0,
  recovered_at timestamptz,
  settled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (enrollment_id, step_index)
);
CREATE INDEX last_chance_steps_open_by_follower ON last_chance_steps (app_id, openid) WHERE settled_at IS NULL;
CREATE INDEX last_chance_steps_by_sequence ON last_chance_steps (sequence_id);
